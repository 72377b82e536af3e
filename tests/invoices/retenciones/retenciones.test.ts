import { describe, expect, test } from 'bun:test';
import { X509Certificate, verify } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { validateRetencionSchema } from '../../../src/cfdi/retenciones/xsd.ts';
import { retencionDocuments, retenciones } from '../../../src/db/schema/index.ts';
import { RetencionExamples } from '../../../src/invoices/retenciones/examples.ts';
import { createTestApp, expectStatus, issuer, READY } from '../../helpers.ts';
import { retencionCadenaFromSatXslt, tfdCadenaFromSatXslt, validateRetencionAgainstSatXsd } from '../../sat/verify.ts';

/**
 * POST /retenciones through the API: each named example stamps in the sandbox as it is (SAT's schemas, the cadena of
 * SAT's stylesheet, a Sello that verifies with the tenant's CSD, a TFD that verifies with the sandbox's certificate),
 * and the reads, filters, idempotency, isolation and roles around it.
 */
const t = await createTestApp();
const newIssuer = (keys: ('test' | 'live')[] = ['test']) => issuer(t, { ...READY, keys, csd: ['test'] });
const example = (name: keyof typeof RetencionExamples) => structuredClone(RetencionExamples[name].value);
const attr = (xml: string, element: string, name: string) => new RegExp(`<${element}\\b[^>]*\\s${name}="([^"]*)"`).exec(xml)?.[1];

describe('the four named examples', () => {
  const a = newIssuer();
  test.each(Object.keys(RetencionExamples))('%s: 201 stamped; its XML passes the schemas, its Sello and the TFD verify', async (name) => {
    const { key } = await a;
    const res = expectStatus(await t.api('POST', '/retenciones', { token: key, body: example(name as keyof typeof RetencionExamples) }), 201);
    expect(res.json).toMatchObject({ status: 'vigente', pac: 'sandbox', emisor: { rfc: 'EKU9003173C9' }, certificado_sat: '99001000000000000001' });
    expect(res.json.id).toStartWith('ret_');
    expect(res.json.folio_int).toBe(`${res.json.serie}${res.json.folio}`);

    const xmlRes = await t.call('GET', `/retenciones/${res.json.id}/xml`, { token: key });
    expect(xmlRes.status).toBe(200);
    expect(xmlRes.headers.get('content-type')).toBe('application/xml');
    const xml = xmlRes.text;
    expect(attr(xml, 'retenciones:Retenciones', 'FolioInt')).toBe(res.json.folio_int);
    expect(attr(xml, 'tfd:TimbreFiscalDigital', 'UUID')).toBe(res.json.uuid!);
    expect(await validateRetencionSchema(xml)).toEqual({ valid: true, errors: [] });
    expect(await validateRetencionAgainstSatXsd(xml)).toEqual({ valid: true, errors: [] });

    const cadena = await retencionCadenaFromSatXslt(xml);
    const sello = attr(xml, 'retenciones:Retenciones', 'Sello')!;
    const certificado = new X509Certificate(Buffer.from(attr(xml, 'retenciones:Retenciones', 'Certificado')!, 'base64'));
    expect(verify('sha256', Buffer.from(cadena, 'utf8'), certificado.publicKey, Buffer.from(sello, 'base64'))).toBe(true);
    const tfdCadena = await tfdCadenaFromSatXslt(xml);
    expect(tfdCadena).toBe(res.json.cadena_original_sat!);
    const selloSat = attr(xml, 'tfd:TimbreFiscalDigital', 'SelloSAT')!;
    const sat = new X509Certificate(Buffer.from(await (await t.app.request('/api/v1/sandbox/sat-certificate')).arrayBuffer()));
    expect(verify('sha256', Buffer.from(tfdCadena, 'utf8'), sat.publicKey, Buffer.from(selloSat, 'base64'))).toBe(true);

    // GET answers what POST answered, by id and by UUID (any case).
    expect((await t.call('GET', `/retenciones/${res.json.id}`, { token: key })).json).toEqual(res.json);
    expect((await t.call('GET', `/retenciones/${res.json.uuid!.toLowerCase()}`, { token: key })).json).toEqual(res.json);
  });

  test('totals computed and stored exactly; the complements named; retencion.timbrada recorded', async () => {
    const { key, tenant } = await newIssuer();
    const res = expectStatus(await t.api('POST', '/retenciones', { token: key, body: example('retencion_arrendamiento') }), 201);
    expect(res.json.totales).toEqual({ monto_tot_operacion: 20000, monto_tot_grav: 20000, monto_tot_exent: 0, monto_tot_ret: 4133.34 });
    expect(res.json.impuestos_retenidos.map((i) => i.monto_ret)).toEqual([2000, 2133.34]);
    expect(res.json.complementos).toEqual([]);
    const [row] = await t.query<{ monto_tot_ret: string; monto_tot_operacion: string }>(
      sql`select monto_tot_ret, monto_tot_operacion from retenciones where id = ${res.json.id}`,
    );
    expect(row).toEqual({ monto_tot_ret: '4133.34', monto_tot_operacion: '20000.00' });
    const plataformas = expectStatus(await t.api('POST', '/retenciones', { token: key, body: example('retencion_plataformas_tecnologicas') }), 201);
    expect(plataformas.json.complementos).toEqual(['plataformasTecnologicas:ServiciosPlataformasTecnologicas']);
    expect(plataformas.json.folio).toBe(res.json.folio + 1);
    const events = await t.query<{ type: string; data: string }>(sql`select type, data from events where tenant_id = ${tenant.id} order by id`);
    expect(events.map((e) => e.type)).toEqual(['retencion.timbrada', 'retencion.timbrada']);
    expect(JSON.parse(events[0]!.data)).toEqual({
      retencion_id: res.json.id,
      uuid: res.json.uuid,
      folio_int: res.json.folio_int,
      cve_retenc: '05',
      receptor_rfc: 'FUNK671228PH6',
    });
  });
});

describe('POST /retenciones/validate', () => {
  test('each example is valid; nothing is stored, no folio taken', async () => {
    const { key, tenant } = await newIssuer();
    for (const name of Object.keys(RetencionExamples))
      expect(
        expectStatus(await t.api('POST', '/retenciones/validate', { token: key, body: example(name as keyof typeof RetencionExamples) }), 200).json,
      ).toEqual({
        valid: true,
        errors: [],
      });
    expect(await t.count(retenciones, eq(retenciones.tenantId, tenant.id))).toBe(0);
    const issued = expectStatus(await t.api('POST', '/retenciones', { token: key, body: example('retencion_arrendamiento') }), 201);
    expect(issued.json.folio).toBe(1);
  });

  test('without a CSD: invalid, naming the csd', async () => {
    const b = await issuer(t, { ...READY, keys: ['test'], csd: [] });
    const res = expectStatus(await t.api('POST', '/retenciones/validate', { token: b.key, body: example('retencion_arrendamiento') }), 200);
    expect(res.json.valid).toBe(false);
    expect(res.json.errors.map((e) => e.field)).toEqual(['csd']);
    expect((await t.call('POST', '/retenciones', { token: b.key, body: example('retencion_arrendamiento') })).status).toBe(400);
  });
});

describe('series and FolioInt', () => {
  test('a named series numbers them apart; an unknown one is 400 naming serie; one FolioInt cannot hold is 400 naming serie', async () => {
    const { key } = await newIssuer();
    expectStatus(await t.api('POST', '/series', { token: key, body: { serie: 'RET', folio_inicial: 100 } }), 201);
    const res = expectStatus(await t.api('POST', '/retenciones', { token: key, body: { ...example('retencion_arrendamiento'), serie: 'RET' } }), 201);
    expect([res.json.serie, res.json.folio, res.json.folio_int]).toEqual(['RET', 100, 'RET100']);
    const unknown = await t.call('POST', '/retenciones', { token: key, body: { ...example('retencion_arrendamiento'), serie: 'NOPE' } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.details.map((d: { field: string }) => d.field)).toEqual(['serie']);
    expectStatus(await t.api('POST', '/series', { token: key, body: { serie: 'R-1' } }), 201);
    const dashed = await t.call('POST', '/retenciones', { token: key, body: { ...example('retencion_arrendamiento'), serie: 'R-1' } });
    expect(dashed.status).toBe(400);
    expect(dashed.json.error.details).toEqual([{ field: 'serie', issue: expect.stringContaining('letters and digits') }]);
  });
});

describe('complements sent as XML and concurrent issuing', () => {
  const intereses =
    '<intereses:Intereses xmlns:intereses="http://www.sat.gob.mx/esquemas/retencionpago/1/intereses" Version="1.0" SistFinanciero="SI" RetiroAORESRetInt="NO" OperFinancDerivad="NO" MontIntNominal="1500.00" MontIntReal="300.00" Perdida="0"/>';
  const interesesBody = (xml: string) => ({
    cve_retenc: '16',
    receptor: example('retencion_arrendamiento').receptor,
    periodo: { mes_ini: '01', mes_fin: '10', ejercicio: '2026' },
    totales: { monto_tot_operacion: '1500', monto_tot_grav: '300' },
    impuestos_retenidos: [{ impuesto_ret: '001', base_ret: '300', tasa: '0.2', tipo_pago_ret: '03' }],
    complementos_xml: [xml],
  });

  test("SAT's Intereses as XML: stamped and schema-valid; one its schema refuses is 400 naming complementos_xml[0]", async () => {
    const { key } = await newIssuer();
    const res = expectStatus(await t.api('POST', '/retenciones', { token: key, body: interesesBody(intereses) }), 201);
    expect(res.json.complementos).toEqual(['intereses:Intereses']);
    const xml = (await t.call('GET', `/retenciones/${res.json.id}/xml`, { token: key })).text;
    expect(await validateRetencionSchema(xml)).toEqual({ valid: true, errors: [] });
    const bad = await t.call('POST', '/retenciones', { token: key, body: interesesBody(intereses.replace('SistFinanciero="SI"', 'SistFinanciero="X"')) });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details.map((d: { field: string }) => d.field)).toEqual(['complementos_xml[0]']);
  });

  test('issued at once, each takes its own folio', async () => {
    const { key } = await newIssuer();
    const answers = await Promise.all(Array.from({ length: 6 }, () => t.api('POST', '/retenciones', { token: key, body: example('retencion_arrendamiento') })));
    const folios = answers.map((r) => expectStatus(r, 201).json.folio).sort((x, y) => x - y);
    expect(folios).toEqual([1, 2, 3, 4, 5, 6]);
    expect(new Set(answers.map((r) => expectStatus(r, 201).json.uuid)).size).toBe(6);
  });
});

describe('idempotency', () => {
  test('a retry with the same Idempotency-Key answers the first stamp; nothing new is stored', async () => {
    const { key, tenant } = await newIssuer();
    const headers = { 'idempotency-key': `ret-${crypto.randomUUID()}` };
    const first = expectStatus(await t.api('POST', '/retenciones', { token: key, body: example('retencion_dividendos'), headers }), 201);
    const again = expectStatus(await t.api('POST', '/retenciones', { token: key, body: example('retencion_dividendos'), headers }), 201);
    expect(again.json).toEqual(first.json);
    expect(await t.count(retenciones, eq(retenciones.tenantId, tenant.id))).toBe(1);
    const [bound] = await t.query<{ resource_id: string }>(sql`select resource_id from idempotency_keys where tenant_id = ${tenant.id}`);
    expect(bound!.resource_id).toBe(first.json.id);
    const other = await t.call('POST', '/retenciones', { token: key, body: example('retencion_arrendamiento'), headers });
    expect(other.status).toBe(409);
  });
});

describe('GET /retenciones', () => {
  test('filters and cursor pages, newest first', async () => {
    const { key } = await newIssuer();
    const issued: { id: string; cve: string }[] = [];
    for (const name of [
      'retencion_arrendamiento',
      'retencion_dividendos',
      'retencion_arrendamiento',
      'retencion_pagos_extranjeros',
      'retencion_plataformas_tecnologicas',
    ] as const) {
      const res = expectStatus(await t.api('POST', '/retenciones', { token: key, body: example(name) }), 201);
      issued.push({ id: res.json.id, cve: res.json.cve_retenc });
    }
    const newestFirst = issued.map((r) => r.id).reverse();
    const all = expectStatus(await t.api('GET', '/retenciones', { token: key }), 200);
    expect(all.json.data.map((r) => r.id)).toEqual(newestFirst);
    expect(all.json.data[0]).toMatchObject({
      status: 'vigente',
      cve_retenc: '26',
      receptor: { rfc: 'FUNK671228PH6', num_reg_id_trib: null },
      monto_tot_ret: 1050,
    });

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = expectStatus(await t.api('GET', `/retenciones?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: key }), 200);
      seen.push(...page.json.data.map((r) => r.id));
      cursor = page.json.pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual(newestFirst);

    const ids = async (query: string) => expectStatus(await t.api('GET', `/retenciones?${query}`, { token: key }), 200).json.data.map((r) => r.id);
    const byCve = (cve: string) =>
      issued
        .filter((r) => r.cve === cve)
        .map((r) => r.id)
        .reverse();
    expect(await ids('cve_retenc=05')).toEqual(byCve('05'));
    expect(await ids('receptor_rfc=funk671228ph6')).toEqual([...byCve('26'), ...byCve('05')].sort().reverse());
    expect(await ids('ejercicio=2026')).toEqual(newestFirst);
    expect(await ids('ejercicio=2025')).toEqual([]);
    expect(await ids('status=cancelado')).toEqual([]);
    expect(await ids('status=vigente&cve_retenc=18')).toEqual(byCve('18'));
    // fecha_exp is the issuer's local time: the day of the first one, and the day after the last one.
    const day = all.json.data.at(-1)!.fecha_exp.slice(0, 10);
    expect(await ids(`desde=${day}`)).toEqual(newestFirst);
    expect(await ids(`hasta=${all.json.data[0]!.fecha_exp}`)).toEqual(newestFirst);
    expect(await ids(`desde=${all.json.data[0]!.fecha_exp.slice(0, 10)}T23:59:59&hasta=2099-12-31`)).toEqual([]);
    expect((await ids('desde=2019-01-01&hasta=2099-12-31')).length).toBe(5);
    expect(await ids('hasta=2019-01-01')).toEqual([]);
    for (const bad of ['cve_retenc=5', 'ejercicio=abc', 'status=nuevo', 'desde=ayer', 'cursor=xyz', 'limit=0'])
      expect((await t.call('GET', `/retenciones?${bad}`, { token: key })).status).toBe(400);
  });
});

describe('isolation and roles', () => {
  test("another tenant's retención is 404 on every read, and absent from its list; the other environment's too", async () => {
    const a = await newIssuer();
    const b = await newIssuer(['test', 'live']);
    const res = expectStatus(await t.api('POST', '/retenciones', { token: a.key, body: example('retencion_arrendamiento') }), 201);
    for (const path of [
      `/retenciones/${res.json.id}`,
      `/retenciones/${res.json.uuid}`,
      `/retenciones/${res.json.id}/xml`,
      `/retenciones/${res.json.uuid}/xml`,
    ]) {
      expect((await t.call('GET', path, { token: b.key })).status).toBe(404);
      expect((await t.call('GET', path, { token: b.live })).status).toBe(404);
    }
    expect(expectStatus(await t.api('GET', '/retenciones', { token: b.key }), 200).json.data).toEqual([]);
    expect((await t.call('GET', '/retenciones/ret_00000000000000000000000000', { token: a.key })).status).toBe(404);
    expect((await t.call('GET', '/retenciones/cfdi_00000000000000000000000000', { token: a.key })).status).toBe(400);
  });

  test('a VIEWER cannot issue (403) but can read and validate', async () => {
    const a = await newIssuer();
    const email = `viewer-${crypto.randomUUID().slice(0, 8)}@example.com`;
    expectStatus(await t.api('POST', '/users', { token: a.token, body: { email, nombre: 'Visor', role: 'VIEWER', password: 'a-long-password-1' } }), 201);
    const login = expectStatus(await t.api('POST', '/auth/login', { body: { email, password: 'a-long-password-1' } }), 200);
    const viewer = login.json.access_token;
    const refused = await t.call('POST', '/retenciones', { token: viewer, body: example('retencion_arrendamiento') });
    expect(refused.status).toBe(403);
    expect(await t.count(retenciones, eq(retenciones.tenantId, a.tenant.id))).toBe(0);
    expect((await t.call('GET', '/retenciones', { token: viewer })).status).toBe(200);
    expect((await t.call('POST', '/retenciones/validate', { token: viewer, body: example('retencion_arrendamiento') })).json.valid).toBe(true);
  });
});

describe('live mode without a PAC', () => {
  test('503 naming environment, nothing stored; validate names it first (live stamping: live.test.ts)', async () => {
    const b = await newIssuer(['test', 'live']);
    const res = await t.call('POST', '/retenciones', { token: b.live, body: example('retencion_arrendamiento') });
    expect(res.status).toBe(503);
    expect(res.json.error.details[0].field).toBe('environment');
    expect(await t.count(retenciones, eq(retenciones.tenantId, b.tenant.id))).toBe(0);
    expect(await t.count(retencionDocuments, eq(retencionDocuments.tenantId, b.tenant.id))).toBe(0);
    const verdict = await t.call('POST', '/retenciones/validate', { token: b.live, body: example('retencion_arrendamiento') });
    expect(verdict.json.valid).toBe(false);
    expect(verdict.json.errors[0].field).toBe('environment');
  });
});
