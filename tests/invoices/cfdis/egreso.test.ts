import { beforeAll, describe, expect, test } from 'bun:test';
import { createSandboxPac } from '../../../src/pac/sandbox.ts';
import { createTestApp, ICV, issuer, READY, testSandboxSat } from '../../helpers.ts';
import { sql } from 'drizzle-orm';
import { cfdis } from '../../../src/db/schema/index.ts';

/**
 * Issue 9, Egreso: an Egreso relates to the tenant's own vigente invoices to the same receptor, with a TipoRelacion
 * that fits their type; another tenant's UUID or a cancelled invoice → 400 naming the field. While an Egreso relates
 * to an invoice, that invoice is No cancelable.
 */
const t = await createTestApp();
const PF = { rfc: 'FUNK671228PH6', nombre: 'KARLA FUENTE NOLASCO', regimen_fiscal: '612', domicilio_fiscal: '01000', uso_cfdi: 'G02' };
let key = '';
let other = '';

beforeAll(async () => {
  key = (await issuer(t, READY)).key;
  other = (await issuer(t, READY)).key;
});

const concepto = {
  clave_prod_serv: '84111506',
  clave_unidad: 'ACT',
  descripcion: 'Bonificación',
  cantidad: 1,
  valor_unitario: 100,
  impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
};
const ingreso = (receptor = ICV) => ({
  tipo: 'I',
  forma_pago: '03',
  receptor,
  conceptos: [{ ...concepto, clave_unidad: 'E48', descripcion: 'Servicio', valor_unitario: 1000 }],
});
const egreso = (relations: { tipo_relacion: string; uuids: string[] }[], receptor = { ...ICV, uso_cfdi: 'G02' }) => ({
  tipo: 'E',
  forma_pago: '03',
  receptor,
  cfdi_relacionados: relations,
  conceptos: [concepto],
});
async function issue(body: unknown, token = key) {
  const res = await t.call('POST', '/cfdis', { token, body });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.json as { id: string; uuid: string };
}

describe('Egreso relations', () => {
  test("a credit note for the tenant's own invoice stamps; the invoice is then No cancelable until the note is cancelled", async () => {
    const invoice = await issue(ingreso());
    const note = await issue(egreso([{ tipo_relacion: '01', uuids: [invoice.uuid.toLowerCase()] }]));
    expect((await t.call('POST', `/cfdis/${invoice.id}/cancel`, { token: key, body: { motivo: '02' } })).status).toBe(409);
    expect((await t.call('POST', `/cfdis/${note.id}/cancel`, { token: key, body: { motivo: '02' } })).status).toBe(200);
    expect((await t.call('POST', `/cfdis/${invoice.id}/cancel`, { token: key, body: { motivo: '02' } })).status).toBe(200);
  });

  test('every wrong relation → 400 naming cfdi_relacionados[i].uuids[j] (also from /cfdis/validate), and nothing is issued', async () => {
    const mine = await issue(ingreso());
    t.clock.advance(1000); // another second: not byte-identical to an invoice of the first tenant (same RFC)
    const foreign = await issue(ingreso(), other);
    const cancelled = await issue(ingreso());
    expect((await t.call('POST', `/cfdis/${cancelled.id}/cancel`, { token: key, body: { motivo: '02' } })).status).toBe(200);
    const toPf = await issue(ingreso({ ...PF, uso_cfdi: 'G03' }));
    const note = await issue(egreso([{ tipo_relacion: '01', uuids: [mine.uuid] }]));
    const cases: [unknown, string, RegExp][] = [
      [egreso([{ tipo_relacion: '01', uuids: [foreign.uuid] }]), 'cfdi_relacionados[0].uuids[0]', /no CFDI .* in this tenant/],
      [egreso([{ tipo_relacion: '01', uuids: ['6F35D3B5-3651-5370-BC2C-14CDBE384CD7'] }]), 'cfdi_relacionados[0].uuids[0]', /no CFDI/],
      [egreso([{ tipo_relacion: '01', uuids: [mine.uuid, cancelled.uuid] }]), 'cfdi_relacionados[0].uuids[1]', /is cancelado/],
      [egreso([{ tipo_relacion: '01', uuids: [toPf.uuid] }]), 'cfdi_relacionados[0].uuids[0]', /issued to FUNK671228PH6, not to this receptor ICV060329BY0/],
      [egreso([{ tipo_relacion: '03', uuids: [note.uuid] }]), 'cfdi_relacionados[0].uuids[0]', /type E; TipoRelacion 03 relates an Egreso to I or T/],
      [egreso([{ tipo_relacion: '05', uuids: [mine.uuid] }]), 'cfdi_relacionados[0].tipo_relacion', /not a relation an Egreso uses/],
    ];
    const before = await t.count(cfdis);
    for (const [body, field, issue] of cases) {
      for (const path of ['/cfdis', '/cfdis/validate']) {
        const res = await t.call('POST', path, { token: key, body });
        const details = path === '/cfdis' ? (expect(res.status).toBe(400), res.json.error.details) : (expect(res.json.valid).toBe(false), res.json.errors);
        const detail = details.find((d: any) => d.field === field);
        expect(detail, `${path} ${field}: ${res.text}`).toBeDefined();
        expect(detail.issue).toMatch(issue);
      }
    }
    expect(await t.count(cfdis)).toBe(before);
  });

  test('two tenants with one RFC sending byte-identical XML through one live PAC account: the second gets 422 (the document was stamped already), not a 500', async () => {
    // A live provider answers by account, not by tenant: one deployment's account gives byte-identical XML one UUID.
    const sandbox = createSandboxPac(testSandboxSat());
    const live = await createTestApp({
      livePacs: [{ ...sandbox, name: 'live', stamp: (xml: string) => sandbox.stamp(xml, { tenantId: 'the-deployment-account' }) }],
    });
    const liveIssuer = async () => (await issuer(live, { keys: ['live'], csd: ['live'] })).live;
    const [first, second] = [await liveIssuer(), await liveIssuer()]; // both at folio A-1, same clock second
    const a = await live.call('POST', '/cfdis', { token: first, body: ingreso() });
    const b = await live.call('POST', '/cfdis', { token: second, body: ingreso() });
    expect(a.status).toBe(201);
    expect(b.status).toBe(422);
    expect(b.json.error.details[0].issue).toContain('already stamped');
    expect(
      (
        await live.call(
          'GET',
          `/cfdis/${b.json.error.details[0] && (await live.query<{ id: string }>(sql`select id from cfdis where status = 'fallido' order by id desc limit 1`))[0]!.id}`,
          { token: second },
        )
      ).json.status,
    ).toBe('fallido');
  });
});
