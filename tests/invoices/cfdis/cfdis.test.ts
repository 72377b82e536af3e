import { describe, expect, test } from 'bun:test';
import { concepto, createTestApp, ICV, ingreso, issuer, READY, sqliteConnection, TEST_ENGINE } from '../../helpers.ts';
import { eq, sql } from 'drizzle-orm';
import { unzipSync } from 'fflate';
import { cfdis, idempotencyKeys } from '../../../src/db/schema/index.ts';

const t = await createTestApp({ wakeOnEnqueue: false }); // the crash test reads a queued invoice before the queue runs it
const invoice = (valor = 100) => ingreso({ conceptos: [concepto({ valor_unitario: valor })] });

/** A tenant with the EKU CSD uploaded in test (and optionally live), on a high rate limit. */
function newIssuer(opts: { csd?: boolean; live?: boolean } = {}) {
  const environments: ('test' | 'live')[] = opts.live ? ['test', 'live'] : ['test'];
  return issuer(t, { ...READY, keys: environments, csd: opts.csd === false ? [] : environments });
}

const countRows = (tenantId: string) => t.count(cfdis, eq(cfdis.tenantId, tenantId));

describe('POST /cfdis', () => {
  test('201 with the spec fields; GET /cfdis/:id returns the same record; events recorded', async () => {
    const a = await newIssuer();
    const res = await t.call('POST', '/cfdis', { token: a.key, body: invoice(1000) });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      tipo: 'I',
      status: 'vigente',
      serie: 'A',
      folio: 1,
      emisor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601' },
      receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA' },
      conceptos: [{ descripcion: 'Servicio', cantidad: 1, valor_unitario: 1000, importe: 1000 }],
      subtotal: 1000,
      total: 1160,
      total_impuestos_trasladados: 160,
      moneda: 'MXN',
    });
    expect(res.json.id).toStartWith('cfdi_');
    expect(res.json.fecha_timbrado).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(res.json.fecha_timbrado) - t.clock.now.getTime())).toBeLessThan(1500);
    expect(res.json.certificado_sat).toBe('99001000000000000001');
    expect(res.json.cadena_original_sat).toStartWith(`||1.1|${res.json.uuid}|`);
    const got = await t.call('GET', `/cfdis/${res.json.id}`, { token: a.key });
    const { warnings: _w, ...body } = res.json;
    expect(got.json).toEqual({ ...body, receipt_id: null }); // GET names the receipt a CFDI invoiced: none here
    const events = await t.query<{ type: string; data: string }>(sql`select type, data from events where tenant_id = ${a.tenant.id} order by id`);
    expect(events.map((e) => e.type)).toContain('cfdi.timbrado');
    expect(JSON.parse(events.find((e) => e.type === 'cfdi.timbrado')!.data)).toEqual({
      cfdi_id: res.json.id,
      uuid: res.json.uuid,
      receipt_id: null,
      external_id: null,
      metadata: {},
    });
    const second = await t.call('POST', '/cfdis', { token: a.key, body: invoice() });
    expect(second.json.folio).toBe(2);
  });

  test('a sandbox invoice is written once, vigente with its stamped XML: no later UPDATE of the invoice or its document', async () => {
    // SQLite: the statements the request runs, from better-sqlite3's Statement (PostgreSQL checks the stored invoice only).
    type Run = (this: { source: string }, ...args: unknown[]) => unknown;
    const proto: Record<string, Run> | undefined = TEST_ENGINE === 'sqlite' ? Object.getPrototypeOf(sqliteConnection(t.db).prepare('select 1')) : undefined;
    const originals = proto && { run: proto.run!, all: proto.all!, get: proto.get! };
    const written: string[] = [];
    if (proto && originals) {
      for (const [name, original] of Object.entries(originals)) {
        proto[name] = function (this: { source: string }, ...args) {
          if (/^(insert|update)/i.test(this.source)) written.push(this.source.slice(0, 40));
          return original.apply(this, args);
        };
      }
    }
    const a = await newIssuer();
    let res: Awaited<ReturnType<typeof t.call>>;
    try {
      res = await t.call('POST', '/cfdis', { token: a.key, body: invoice(250) });
    } finally {
      if (proto && originals) Object.assign(proto, originals);
    }
    expect(res.status).toBe(201);
    if (proto) {
      expect(written.filter((w) => w.startsWith('insert into "cfdis"') || w.startsWith('insert into "cfdi_documents"'))).toHaveLength(2);
      expect(written.filter((w) => /^update "(cfdis|cfdi_documents)"/.test(w))).toEqual([]);
    }
    const [row] = await t.db.select().from(cfdis).where(eq(cfdis.id, res.json.id));
    expect(row).toMatchObject({ status: 'vigente', uuid: res.json.uuid, fechaTimbrado: res.json.fecha_timbrado });
    expect(row?.summary).toMatchObject({ sello_sat: res.json.sello_sat, cadena_original_sat: res.json.cadena_original_sat });
    const xml = await t.call('GET', `/cfdis/${res.json.id}/xml`, { token: a.key });
    expect(xml.text).toContain(`UUID="${res.json.uuid}"`);
  });

  test('no active CSD, or an expired one → 400 naming the CSD; nothing stored, no folio used', async () => {
    const a = await newIssuer({ csd: false });
    const res = await t.call('POST', '/cfdis', { token: a.key, body: invoice() });
    expect(res.status).toBe(400);
    expect(res.json.error.details).toEqual([{ field: 'csd', issue: expect.stringContaining('no active CSD') }]);
    expect(await countRows(a.tenant.id)).toBe(0);
    expect((await t.call('GET', '/series', { token: a.key })).json.data).toEqual([]);

    const b = await newIssuer();
    const real = t.clock.now;
    t.clock.now = new Date('2027-06-01T12:00:00Z'); // after the EKU CSD's valid_to
    const expired = await t.call('POST', '/cfdis', { token: b.key, body: invoice() });
    t.clock.now = real;
    expect(expired.status).toBe(400);
    expect(expired.json.error.details.find((d: any) => d.field === 'csd').issue).toContain('validity');
    expect(await countRows(b.tenant.id)).toBe(0);
    const v = await t.call('POST', '/cfdis/validate', { token: a.key, body: invoice() });
    expect(v.json.valid).toBe(false);
    expect(v.json.errors[0].field).toBe('csd');
  });

  test('live without a configured PAC → 503 with a clear message, nothing stamped', async () => {
    const a = await newIssuer({ live: true });
    const res = await t.call('POST', '/cfdis', { token: a.live, body: invoice() });
    expect(res.status).toBe(503);
    expect(res.json.error.message).toContain('PAC');
    expect(await countRows(a.tenant.id)).toBe(0);
  });

  test('live without a PAC says so first, before the missing live CSD: /cfdis, /cfdis/validate, a receipt and the portal (issue 34)', async () => {
    const a = await newIssuer({ csd: false, live: true }); // no CSD in live either
    const settings = expect.stringContaining('PAC_URL, PAC_USER and PAC_PASSWORD');
    const issued = await t.call('POST', '/cfdis', { token: a.live, body: invoice() });
    expect([issued.status, issued.json.error.details]).toEqual([503, [{ field: 'environment', issue: settings }]]);
    const validated = await t.call('POST', '/cfdis/validate', { token: a.live, body: invoice() });
    expect(validated.status).toBe(200);
    expect(validated.json.valid).toBe(false);
    expect(validated.json.errors.map((e: any) => e.field)).toEqual(['environment', 'csd']);
    expect(validated.json.errors[0].issue).toEqual(settings);

    const receipt = await t.call('POST', '/receipts', { token: a.live, body: { forma_pago: '01', conceptos: [concepto()] } });
    expect(receipt.status).toBe(201);
    const invoiced = await t.call('POST', `/receipts/${receipt.json.id}/invoice`, { token: a.live, body: { receptor: ICV } });
    expect([invoiced.status, invoiced.json.error.details]).toEqual([503, [{ field: 'environment', issue: settings }]]);
    const link = new URL(receipt.json.self_invoice_url);
    const { uso_cfdi, regimen_fiscal, domicilio_fiscal, rfc, nombre } = ICV;
    const portal = await t.app.request(`/portal/${a.tenant.id}/ticket/invoice`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clave: link.searchParams.get('clave'), receptor: { rfc, nombre, domicilio_fiscal, regimen_fiscal, uso_cfdi } }),
    });
    expect(portal.status).toBe(503);
    expect(await countRows(a.tenant.id)).toBe(0);
  });

  test('receptor_id uses a registered client; an unknown one is 400', async () => {
    const a = await newIssuer();
    const client = await t.call('POST', '/clients', { token: a.key, body: ICV });
    expect(client.status).toBe(201);
    const body = { ...invoice(), receptor: undefined, receptor_id: client.json.id };
    const res = await t.call('POST', '/cfdis', { token: a.key, body });
    expect(res.status).toBe(201);
    expect(res.json.receptor).toEqual({ rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA' });
    const unknown = await t.call('POST', '/cfdis', { token: a.key, body: { ...body, receptor_id: 'cli_missing' } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.details[0].field).toBe('receptor_id');
  });

  test('VIEWER cannot issue (403); OPERATOR can', async () => {
    const a = await newIssuer();
    const viewer = await a.userWithRole('VIEWER');
    const operator = await a.userWithRole('OPERATOR');
    expect((await t.call('POST', '/cfdis', { token: viewer.token, body: invoice() })).status).toBe(403);
    expect((await t.call('POST', '/cfdis', { token: operator.token, body: invoice() })).status).toBe(201);
  });
});

describe('isolation', () => {
  test('another tenant cannot read, list or download (404); test never lists live and vice versa', async () => {
    const a = await newIssuer({ live: true });
    const b = await newIssuer();
    const issued = (await t.call('POST', '/cfdis', { token: a.key, body: invoice() })).json;
    for (const token of [b.key, b.token]) {
      expect((await t.call('GET', `/cfdis/${issued.id}`, { token })).status).toBe(404);
      expect((await t.call('GET', `/cfdis/${issued.uuid}/xml`, { token })).status).toBe(404);
      expect((await t.call('GET', '/cfdis', { token })).json.data).toEqual([]);
    }
    expect((await t.call('GET', '/cfdis', { token: a.live })).json.data).toEqual([]);
    expect((await t.call('GET', `/cfdis/${issued.id}`, { token: a.live })).status).toBe(404);
    expect((await t.call('GET', `/cfdis/${issued.uuid}/xml`, { token: a.live })).status).toBe(404);
    expect((await t.call('GET', '/cfdis', { token: a.key })).json.data.map((c: any) => c.id)).toEqual([issued.id]);
    // A JWT acts on test unless it asks for live.
    expect((await t.call('GET', '/cfdis', { token: a.token })).json.data).toHaveLength(1);
    expect((await t.call('GET', '/cfdis', { token: a.token, headers: { 'x-environment': 'live' } })).json.data).toEqual([]);
  });
});

describe('GET /cfdis pagination', () => {
  test('limit bounds, has_more/next_cursor, newest first, filters', async () => {
    const a = await newIssuer();
    for (let i = 0; i < 5; i++) await t.call('POST', '/cfdis', { token: a.key, body: invoice(100 + i) });
    for (const bad of ['limit=0', 'limit=101', 'limit=x', 'cursor=zzz', 'status=nope', 'desde=2026-13-45x']) {
      expect((await t.call('GET', `/cfdis?${bad}`, { token: a.key })).status).toBe(400);
    }
    const first = await t.call('GET', '/cfdis?limit=2', { token: a.key });
    expect(first.json.data.map((c: any) => c.folio)).toEqual([5, 4]);
    expect(first.json.pagination).toMatchObject({ has_more: true, limit: 2 });
    const all = await t.call('GET', '/cfdis?limit=100', { token: a.key });
    expect(all.json.pagination).toEqual({ has_more: false, limit: 100 });
    expect(all.json.data[0]).toMatchObject({ serie: 'A', folio: 5, total: 120.64, status: 'vigente', tipo: 'I' });
    expect((await t.call('GET', '/cfdis?status=vigente&tipo=I&receptor_rfc=icv060329by0&serie=A', { token: a.key })).json.data).toHaveLength(5);
    expect((await t.call('GET', '/cfdis?tipo=E', { token: a.key })).json.data).toHaveLength(0);
    expect((await t.call('GET', '/cfdis?status=cancelado', { token: a.key })).json.data).toHaveLength(0);
    const today = all.json.data[0].fecha.slice(0, 10);
    expect((await t.call('GET', `/cfdis?desde=${today}&hasta=${today}`, { token: a.key })).json.data).toHaveLength(5);
    expect((await t.call('GET', '/cfdis?hasta=2020-01-01', { token: a.key })).json.data).toHaveLength(0);
  });

  test("search: receptor's name (contains, any case, wildcards literal), uuid (any case), folio (with serie), total range (inclusive, exact)", async () => {
    const a = await newIssuer();
    const OTHER = { rfc: 'AAA010101AAA', nombre: 'ACCEM SERVICIOS EMPRESARIALES', regimen_fiscal: '601', domicilio_fiscal: '01000', uso_cfdi: 'G03' };
    const made: { id: string; uuid: string; folio: number; total: number }[] = [];
    for (let i = 0; i < 5; i++) made.push((await t.call('POST', '/cfdis', { token: a.key, body: invoice(100 + i) })).json);
    const other = (await t.call('POST', '/cfdis', { token: a.key, body: ingreso({ receptor: OTHER }) })).json;
    const b = await newIssuer();
    await t.call('POST', '/cfdis', { token: b.key, body: invoice() });
    const ids = async (query: string) => {
      const res = await t.call('GET', `/cfdis?limit=100&${query}`, { token: a.key });
      expect({ query, status: res.status }).toEqual({ query, status: 200 });
      return res.json.data.map((c: { id: string }) => c.id);
    };
    const newestFirst = made.map((c) => c.id).reverse();
    expect(await ids('receptor_nombre=inmobiliaria%20cva')).toEqual(newestFirst);
    expect(await ids('receptor_nombre=bili')).toEqual(newestFirst);
    expect(await ids('receptor_nombre=servicios')).toEqual([other.id]);
    // LIKE's wildcards are plain characters: no name has a % or an _.
    expect(await ids('receptor_nombre=%25')).toEqual([]);
    expect(await ids('receptor_nombre=_')).toEqual([]);
    expect(await ids(`uuid=${made[2]!.uuid.toLowerCase()}`)).toEqual([made[2]!.id]);
    expect(await ids(`uuid=${made[2]!.uuid}&receptor_nombre=servicios`)).toEqual([]);
    expect(await ids(`folio=${made[1]!.folio}`)).toEqual([made[1]!.id]);
    expect(await ids(`folio=${made[1]!.folio}&serie=A`)).toEqual([made[1]!.id]);
    expect(await ids(`folio=${made[1]!.folio}&serie=Z`)).toEqual([]);
    // Totals 116.00, 117.16, 118.32, 119.48, 120.64 (and the other's 116.00): inclusive bounds, compared as decimals.
    expect(made.map((c) => c.total)).toEqual([116, 117.16, 118.32, 119.48, 120.64]);
    expect(await ids('total_min=117.16&total_max=119.480')).toEqual([made[3]!.id, made[2]!.id, made[1]!.id]);
    expect(await ids('total_max=116&receptor_nombre=cva')).toEqual([made[0]!.id]);
    expect(await ids('total_min=120.641')).toEqual([]);
    expect(await ids('total_min=99')).toEqual([other.id, ...newestFirst]); // 99 < 116 as numbers, not as text
    // Keyset pages with a filter: the same ids, page by page.
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.call('GET', `/cfdis?limit=2&receptor_nombre=cva${cursor ? `&cursor=${cursor}` : ''}`, { token: a.key });
      walked.push(...res.json.data.map((c: { id: string }) => c.id));
      cursor = res.json.pagination.next_cursor;
    } while (cursor);
    expect(walked).toEqual(newestFirst);
    for (const [query, field] of [
      ['uuid=nope', 'uuid'],
      ['folio=0', 'folio'],
      ['folio=x', 'folio'],
      ['folio=1234567890123456', 'folio'],
      ['total_min=1e3', 'total_min'],
      ['total_max=-1', 'total_max'],
      ['total_max=1.1234567', 'total_max'],
      [`receptor_nombre=${'x'.repeat(255)}`, 'receptor_nombre'],
    ] as const) {
      const res = await t.call('GET', `/cfdis?${query}`, { token: a.key });
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(`query.${field}`);
    }
  });

  test('GET /cfdis/export.zip: the stamped XMLs the filters match, byte for byte; a queued one left out; more than 500: 413', async () => {
    const a = await newIssuer();
    const made: { id: string; uuid: string }[] = [];
    for (let i = 0; i < 3; i++) made.push((await t.call('POST', '/cfdis', { token: a.key, body: invoice(100 + i) })).json);
    const queued = await t.call('POST', '/cfdis', { token: a.key, body: invoice(), headers: { 'x-sandbox-scenario': 'pac_unavailable' } });
    expect(queued.json.status).toBe('en_cola');
    const b = await newIssuer();
    await t.call('POST', '/cfdis', { token: b.key, body: invoice() });
    const zipOf = async (query: string) => {
      const res = await t.app.request(`/api/v1/cfdis/export.zip?${query}`, { headers: { authorization: `Bearer ${a.key}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/zip');
      return unzipSync(new Uint8Array(await res.arrayBuffer()));
    };
    const all = await zipOf('receptor_nombre=cva');
    expect(Object.keys(all).sort()).toEqual(made.map((c) => `${c.uuid}.xml`).sort());
    for (const c of made) {
      const xml = await t.app.request(`/api/v1/cfdis/${c.uuid}/xml`, { headers: { authorization: `Bearer ${a.key}` } });
      expect(Buffer.from(all[`${c.uuid}.xml`]!).equals(Buffer.from(await xml.arrayBuffer()))).toBe(true);
    }
    expect(Object.keys(await zipOf('total_max=117.16'))).toEqual([`${made[1]!.uuid}.xml`, `${made[0]!.uuid}.xml`]);
    expect(Object.keys(await zipOf('status=cancelado'))).toEqual([]);
    const bad = await t.call('GET', '/cfdis/export.zip?total_min=x', { token: a.key });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].field).toBe('query.total_min');
    // More than 500 stamped match: 413 naming the query, nothing sent.
    for (let i = 0; i < 497; i++) expect((await t.call('POST', '/cfdis', { token: a.key, body: invoice() })).status).toBe(201);
    expect(Object.keys(await zipOf('')).length).toBe(500);
    await t.call('POST', '/cfdis', { token: a.key, body: invoice() });
    const over = await t.call('GET', '/cfdis/export.zip', { token: a.key });
    expect(over.status).toBe(413);
    expect(over.json.error.details[0].field).toBe('query');
    expect(Object.keys(await zipOf('total_min=117'))).toHaveLength(2);
  }, 120_000);

  test('no duplicates or gaps while new invoices are inserted during iteration', async () => {
    const a = await newIssuer();
    for (let i = 0; i < 12; i++) await t.call('POST', '/cfdis', { token: a.key, body: invoice() });
    const seen: number[] = [];
    let cursor: string | undefined;
    let round = 0;
    do {
      const page = await t.call('GET', `/cfdis?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { token: a.key });
      seen.push(...page.json.data.map((c: any) => c.folio));
      cursor = page.json.pagination.next_cursor;
      // Newer invoices arrive meanwhile; they sort before the cursor and do not disturb the walk.
      if (round++ < 3) await t.call('POST', '/cfdis', { token: a.key, body: invoice() });
    } while (cursor);
    expect(seen).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
  });
});

describe('Idempotency-Key', () => {
  test('same key twice → one invoice, same response; other body → 409', async () => {
    const a = await newIssuer();
    const headers = { 'idempotency-key': 'order-1001' };
    const first = await t.call('POST', '/cfdis', { token: a.key, body: invoice(), headers });
    const again = await t.call('POST', '/cfdis', { token: a.key, body: invoice(), headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await countRows(a.tenant.id)).toBe(1);
    const other = await t.call('POST', '/cfdis', { token: a.key, body: invoice(999), headers });
    expect(other.status).toBe(409);
    expect(other.json.error.details[0].field).toBe('idempotency-key');
    // Another tenant may use the same key for its own request.
    const b = await newIssuer();
    expect((await t.call('POST', '/cfdis', { token: b.key, body: invoice(), headers })).json.id).not.toBe(first.json.id);
  });

  test('concurrent requests with the same key → one invoice, identical responses', async () => {
    const a = await newIssuer();
    const headers = { 'idempotency-key': 'concurrent-7' };
    const results = await Promise.all(Array.from({ length: 8 }, () => t.call('POST', '/cfdis', { token: a.key, body: invoice(), headers })));
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(await countRows(a.tenant.id)).toBe(1);
  });

  test('validation failures are replayed too; the key expires after 24 h; bad keys are 400', async () => {
    const a = await newIssuer();
    const headers = { 'idempotency-key': 'bad-1' };
    const bad = { ...invoice(), forma_pago: '77' };
    const r1 = await t.call('POST', '/cfdis', { token: a.key, body: bad, headers });
    const r2 = await t.call('POST', '/cfdis', { token: a.key, body: bad, headers });
    expect(r1.status).toBe(400);
    expect(r2.text).toBe(r1.text);
    t.clock.advance(24 * 3600_000 + 1000);
    const later = await t.call('POST', '/cfdis', { token: a.key, body: invoice(), headers });
    t.clock.advance(-(24 * 3600_000 + 1000));
    expect(later.status).toBe(201);
    expect((await t.call('POST', '/cfdis', { token: a.key, body: invoice(), headers: { 'idempotency-key': 'with space' } })).status).toBe(400);
  });

  test('after a crash mid-request (a pending claim left behind): a retry answers from the invoice it created, or issues when none was', async () => {
    const a = await newIssuer();
    const claims = () => t.query(sql`select key, status, resource_id from idempotency_keys where tenant_id = ${a.tenant.id} order by key`);
    // The claim is durable before the route runs and bound to the invoice in the invoice's own transaction.
    const queued = await t.call('POST', '/cfdis', {
      token: a.key,
      body: invoice(),
      headers: { 'idempotency-key': 'crash-1', 'x-sandbox-scenario': 'pac_unavailable' },
    });
    expect(queued.status).toBe(202);
    expect(await claims()).toEqual([{ key: 'crash-1', status: 202, resource_id: queued.json.id }]);
    // What a process killed after the invoice's commit, before its answer was stored, leaves behind:
    await t.exec(sql`update idempotency_keys set status = 0, body = ${Buffer.alloc(0)} where key = 'crash-1'`);
    const retried = await t.call('POST', '/cfdis', { token: a.key, body: invoice(), headers: { 'idempotency-key': 'crash-1' } });
    expect(retried.status).toBe(202);
    expect(retried.json).toMatchObject({ id: queued.json.id, status: 'en_cola' });
    expect(await countRows(a.tenant.id)).toBe(1);
    // Once stamped, the same situation answers 201 with the invoice.
    t.clock.advance(60_000);
    await t.app.worker.drain();
    await t.exec(sql`update idempotency_keys set status = 0, body = ${Buffer.alloc(0)} where key = 'crash-1'`);
    const stamped = await t.call('POST', '/cfdis', { token: a.key, body: invoice(), headers: { 'idempotency-key': 'crash-1' } });
    expect(stamped.status).toBe(201);
    expect(stamped.json).toMatchObject({ id: queued.json.id, status: 'vigente' });
    expect(await countRows(a.tenant.id)).toBe(1);
    // Killed before anything was committed (a claim with nothing bound): the retry issues it, once.
    await t.exec(
      sql`insert into idempotency_keys (tenant_id, environment, actor, key, method, path, request_hash, status, headers, body, created_at) select tenant_id, environment, actor, 'crash-2', method, path, request_hash, 0, '{}', ${Buffer.alloc(0)}, ${t.clock.now.toISOString()} from idempotency_keys where key = 'crash-1'`,
    );
    const fresh = await t.call('POST', '/cfdis', { token: a.key, body: invoice(), headers: { 'idempotency-key': 'crash-2' } });
    expect(fresh.status).toBe(201);
    expect(fresh.json.id).not.toBe(queued.json.id);
    expect(await countRows(a.tenant.id)).toBe(2);
    expect(await claims()).toEqual([
      { key: 'crash-1', status: 201, resource_id: queued.json.id },
      { key: 'crash-2', status: 201, resource_id: fresh.json.id },
    ]);
  });

  test('a request that fails with a 5xx leaves no claim: its retry runs again', async () => {
    const a = await newIssuer({ live: true }); // live without a PAC configured → 503
    const headers = { 'idempotency-key': 'no-pac' };
    expect((await t.call('POST', '/cfdis', { token: a.live, body: invoice(), headers })).status).toBe(503);
    expect(await t.count(idempotencyKeys, eq(idempotencyKeys.key, 'no-pac'))).toBe(0);
  });
});
