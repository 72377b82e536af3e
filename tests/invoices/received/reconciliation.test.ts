import { beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { localDateTime } from '../../../src/cfdi/time.ts';
import { intakeReceived } from '../../../src/invoices/received/intake.ts';
import { createTestApp, ICV, issuer, READY } from '../../helpers.ts';

/**
 * Acceptance 3 of issue 39: a fixture month issued through the API by a supplier (ten PPD invoices, REPs paying them
 * fully, partly, in two parcialidades, not at all, a cancelled REP, notas de crédito), received by its customer in
 * any order: every invoice's reconciliation state and amount paid.
 */
const t = await createTestApp();
let supplier: Awaited<ReturnType<typeof issuer>>;
let customer: Awaited<ReturnType<typeof issuer>>;
const iva16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
const concepto = (valor: string) => ({
  clave_prod_serv: '84111506',
  clave_unidad: 'E48',
  descripcion: 'Servicio',
  cantidad: 1,
  valor_unitario: valor,
  impuestos: iva16,
});
const ppd = (valor: string) => ({ tipo: 'I', metodo_pago: 'PPD', forma_pago: '99', receptor: ICV, conceptos: [concepto(valor)] });
const pastFecha = () => localDateTime(new Date(t.clock.now.getTime() - 3600_000), '42501');
const rep = (documentos: { cfdi_id: string; imp_pagado: string }[]) => ({
  tipo: 'P',
  receptor: { ...ICV, uso_cfdi: 'CP01' },
  pagos: [
    {
      fecha_pago: pastFecha(),
      forma_pago: '03',
      moneda: 'MXN',
      monto: (documentos.reduce((a, d) => a + Math.round(Number(d.imp_pagado) * 100), 0) / 100).toFixed(2),
      documentos,
    },
  ],
});
const nota = (tipoRelacion: string, uuid: string, valor: string) => ({
  tipo: 'E',
  forma_pago: '03',
  receptor: { ...ICV, uso_cfdi: 'G02' },
  cfdi_relacionados: [{ tipo_relacion: tipoRelacion, uuids: [uuid] }],
  conceptos: [concepto(valor)],
});
const xmls: string[] = [];
async function issue(body: unknown) {
  const res = await t.call('POST', '/cfdis', { token: supplier.key, body });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  const xml = await (await t.app.request(`/api/v1/cfdis/${res.json.id}/xml`, { headers: { authorization: `Bearer ${supplier.key}` } })).text();
  xmls.push(xml);
  t.clock.advance(1000);
  return res.json as { id: string; uuid: string };
}

beforeAll(async () => {
  supplier = await issuer(t, READY);
  customer = await issuer(t, {
    plan: 'enterprise',
    requestsPerMinute: 1_000_000,
    keys: ['test'],
    tenant: { rfc: ICV.rfc, nombre: ICV.nombre, regimen_fiscal: '601', codigo_postal: '33826' },
  });
}, 60_000);

describe('reconciliation over a fixture month, through intake', () => {
  test('every state right, whatever order the documents arrive in; a cancelled REP stops counting', async () => {
    const inv: { id: string; uuid: string }[] = [];
    for (let i = 0; i < 10; i++) inv.push(await issue(ppd('100'))); // Total 116.00 each
    const repFull = await issue(rep([{ cfdi_id: inv[0]!.id, imp_pagado: '116.00' }])); // 1: completo
    await issue(
      rep([
        { cfdi_id: inv[1]!.id, imp_pagado: '50.00' },
        { cfdi_id: inv[2]!.id, imp_pagado: '58.00' },
      ]),
    ); // 2: parcial; 3: first half
    await issue(rep([{ cfdi_id: inv[2]!.id, imp_pagado: '58.00' }])); // 3: second parcialidad → completo
    const repCancelled = await issue(rep([{ cfdi_id: inv[4]!.id, imp_pagado: '116.00' }])); // 5: paid, then the REP is cancelled
    await issue(rep([{ cfdi_id: inv[5]!.id, imp_pagado: '100.00' }]));
    await issue(nota('01', inv[5]!.uuid, '13.79')); // 6: 100 paid + a nota de crédito of 16.00 → completo
    await issue(rep([{ cfdi_id: inv[6]!.id, imp_pagado: '116.00' }]));
    await issue(nota('01', inv[6]!.uuid, '100')); // 7: paid, then credited 116 more → exceso
    await issue(nota('07', inv[7]!.uuid, '50')); // 8: an anticipo of 58.00 applied → parcial
    await issue(nota('03', inv[8]!.uuid, '50')); // 9: a devolución (03) credits nothing → sin_pago
    // 4: paid by an REP the customer receives altered (ImpPagado changed: the seal fails, stored invalid): nothing counts.
    await issue(rep([{ cfdi_id: inv[3]!.id, imp_pagado: '116.00' }]));
    const altered = xmls.pop()!.replace(/ImpPagado="116.00"/, 'ImpPagado="115.00"');
    // 10: nothing.

    // The customer receives them all, REPs and notas before the invoices they name.
    const order = [...xmls.slice(10), ...xmls.slice(0, 10)];
    const outcomes = await intakeReceived(
      t.app.receivedDeps,
      { tenantId: customer.tenant.id, environment: 'test' },
      order.map((xml, i) => ({ name: `${i}.xml`, bytes: new TextEncoder().encode(xml) })),
    );
    expect(outcomes.every((o) => o.result === 'created')).toBe(true);
    const [tampered] = await intakeReceived(t.app.receivedDeps, { tenantId: customer.tenant.id, environment: 'test' }, [
      { name: 'altered.xml', bytes: new TextEncoder().encode(altered) },
    ]);
    expect(tampered!.result).toBe('invalid');
    const states = async () => {
      const rows = await t.query<{ uuid: string; reconciliation: string | null; amount_paid: string | null }>(
        sql`select uuid, reconciliation, amount_paid from received_cfdis where tenant_id = ${customer.tenant.id} and tipo = 'I'`,
      );
      const by = new Map(rows.map((r) => [r.uuid, [r.reconciliation, r.amount_paid]]));
      return inv.map((i) => by.get(i.uuid));
    };
    expect(await states()).toEqual([
      ['completo', '116.00'],
      ['parcial', '50.00'],
      ['completo', '116.00'],
      ['sin_pago', '0'],
      ['completo', '116.00'],
      ['completo', '116.00'],
      ['exceso', '232.00'],
      ['parcial', '58.00'],
      ['sin_pago', '0'],
      ['sin_pago', '0'],
    ]);
    // The REPs the customer is owed: GET /received-cfdis?reconciliation=sin_pago lists exactly those invoices.
    const owed = await t.call('GET', '/received-cfdis?reconciliation=sin_pago&limit=100', { token: customer.key });
    expect(owed.status).toBe(200);
    expect(owed.json.data.map((r: { uuid: string }) => r.uuid).sort()).toEqual([inv[3]!.uuid, inv[8]!.uuid, inv[9]!.uuid].sort());
    const partial = await t.call('GET', '/received-cfdis?reconciliation=parcial', { token: customer.key });
    expect(partial.json.data.map((r: { uuid: string; amount_paid?: string }) => r.uuid).sort()).toEqual([inv[1]!.uuid, inv[7]!.uuid].sort());
    // REPs and Egresos are not reconciled themselves.
    const others = await t.query<{ n: number }>(
      sql`select count(*) as n from received_cfdis where tenant_id = ${customer.tenant.id} and tipo <> 'I' and reconciliation is not null`,
    );
    expect(Number(others[0]!.n)).toBe(0);

    // The supplier cancels invoice 5's REP; the customer's status refresh sees it cancelado: 5 is owed again.
    expect((await t.call('POST', `/cfdis/${repCancelled.id}/cancel`, { token: supplier.key, body: { motivo: '02' } })).status).toBe(200);
    const [received] = await t.query<{ id: string }>(
      sql`select id from received_cfdis where tenant_id = ${customer.tenant.id} and uuid = ${repCancelled.uuid}`,
    );
    expect((await t.call('POST', `/received-cfdis/${received!.id}/refresh`, { token: customer.key })).json.sat_status).toBe('cancelado');
    expect((await states())[4]).toEqual(['sin_pago', '0']);
    const owedNow = await t.call('GET', '/received-cfdis?reconciliation=sin_pago&limit=100', { token: customer.key });
    expect(owedNow.json.data.map((r: { uuid: string }) => r.uuid)).toContain(inv[4]!.uuid);
    // The other REP refreshed vigente: nothing moves.
    const [full] = await t.query<{ id: string }>(sql`select id from received_cfdis where tenant_id = ${customer.tenant.id} and uuid = ${repFull.uuid}`);
    await t.call('POST', `/received-cfdis/${full!.id}/refresh`, { token: customer.key });
    expect((await states())[0]).toEqual(['completo', '116.00']);
  }, 120_000);
});
