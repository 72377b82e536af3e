import { afterAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { DEMO_INVOICE } from '../../../src/demo.ts';
import { RetencionBatchExamples, RetencionExamples } from '../../../src/invoices/retenciones/examples.ts';
import { createTestApp, csdFiles, csdForm, issuer, READY, smtpSink, sqliteConnection, TENANTS, TEST_ENGINE, userWithRole } from '../../helpers.ts';
import { sql, type SQL } from 'drizzle-orm';
import { auditLog, receivedCfdis } from '../../../src/db/schema/index.ts';

/**
 * Issue 11: every write leaves one audit entry (who, what, which resource, when, request id); reads, refusals and
 * idempotent replays leave none; only the tenant's ADMIN reads it; nothing can change or remove an entry.
 */
const receiver = (() => {
  let calls = 0;
  const server = Bun.serve({ port: 0, fetch: async (req) => (await req.text(), new Response(null, { status: ++calls === 1 ? 500 : 200 })) });
  return { url: `http://127.0.0.1:${server.port}/hook`, stop: () => server.stop(true) };
})();
afterAll(() => receiver.stop());

const sink = await smtpSink(); // the email route sends through it
afterAll(() => sink.close());
// test-mode emails to any address; a pac_slow attempt that outlasts the requests after it on a busy machine
const t = await createTestApp({
  webhookAllowPrivate: true,
  webhookRetrySchedule: [0, 3600],
  smtp: { ...sink.smtp, testCapture: 'captura@example.com' },
  sandboxSlowMs: 5000,
});
const LOGO = readFileSync(new URL('../../fixtures/branding/logo.png', import.meta.url).pathname);

/** Calls a write and returns what its audit entry must say. */
type Expect = { action: string; status: number; requestId: string; actor: { type: string; id: string }; resource: { type: string; id: string | null } };

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

/** `list` with the elements `chosen` picks sorted by `id` among themselves, in the places they held. */
function inItemOrder<T>(list: T[], chosen: (x: T) => boolean, id: (x: T) => string): T[] {
  const places = list.flatMap((x, i) => (chosen(x) ? [i] : []));
  const sorted = places.map((i) => list[i]!).sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
  for (const [k, i] of places.entries()) list[i] = sorted[k]!;
  return list;
}

async function call(method: string, path: string, token: string | undefined, body?: unknown, headers: Record<string, string> = {}, app: TestApp = t) {
  const res = await app.call(method, path, { token, body, headers });
  return { ...res, requestId: res.headers.get('x-request-id')! };
}

async function auditAll(token: string, query = '', app: TestApp = t): Promise<any[]> {
  const entries: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await app.call('GET', `/audit-log?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`, { token });
    expect(page.status).toBe(200);
    entries.push(...page.json.data);
    cursor = page.json.pagination.next_cursor;
  } while (cursor);
  return entries;
}

describe('audit log', () => {
  const expected: Expect[] = [];
  // Registered by the first test itself: sign-up is one of the writes it audits.
  let admin: { email: string; password: string; token: string; refreshToken: string; tenant: { id: string }; user: { id: string } };
  let key: { id: string; key: string };

  test('every write route of the OpenAPI document leaves one entry naming the actor, the operation, the resource and the request id', async () => {
    const ok = (res: { status: number; text: string }, status: number, label: string) => {
      if (res.status !== status) throw new Error(`${label}: ${res.status} ${res.text}`);
    };
    const expectWrite = async (
      action: string,
      status: number,
      actor: { type: string; id: string },
      resource: { type: string; id: string | null },
      res: Awaited<ReturnType<typeof call>>,
    ) => {
      ok(res, status, action);
      expected.push({ action, status, requestId: res.requestId, actor, resource });
      return res;
    };

    // Session routes act for the user they name (no credential).
    const reg = await call('POST', '/auth/register', undefined, {
      email: 'audit@example.com',
      password: 'a-long-password-1',
      nombre: 'Ana',
      tenant: TENANTS.EKU,
    });
    admin = {
      email: 'audit@example.com',
      password: 'a-long-password-1',
      token: reg.json.access_token,
      refreshToken: reg.json.refresh_token,
      tenant: reg.json.tenant,
      user: reg.json.user,
    };
    const me = { type: 'user', id: admin.user.id };
    await expectWrite('registerTenant', 201, me, { type: 'users', id: me.id }, reg);
    const login = await expectWrite(
      'login',
      200,
      me,
      { type: 'users', id: me.id },
      await call('POST', '/auth/login', undefined, { email: admin.email, password: admin.password }),
    );
    const refreshed = await expectWrite(
      'refreshSession',
      200,
      me,
      { type: 'users', id: me.id },
      await call('POST', '/auth/refresh', undefined, { refresh_token: login.json.refresh_token }),
    );
    await expectWrite(
      'logout',
      204,
      me,
      { type: 'users', id: me.id },
      await call('POST', '/auth/logout', undefined, { refresh_token: refreshed.json.refresh_token }),
    );

    // Identity, by the ADMIN's session.
    const created = await call('POST', '/api-keys', admin.token, { name: 'ERP' });
    key = created.json;
    await expectWrite('createApiKey', 201, me, { type: 'api-keys', id: key.id }, created);
    const spare = await call('POST', '/api-keys', admin.token, { name: 'spare' });
    await expectWrite('createApiKey', 201, me, { type: 'api-keys', id: spare.json.id }, spare);
    await expectWrite('revokeApiKey', 200, me, { type: 'api-keys', id: spare.json.id }, await call('DELETE', `/api-keys/${spare.json.id}`, admin.token));
    const user = await call('POST', '/users', admin.token, { email: 'op@example.com', password: 'another-long-password', nombre: 'Op', role: 'OPERATOR' });
    await expectWrite('createUser', 201, me, { type: 'users', id: user.json.id }, user);
    await expectWrite(
      'updateUser',
      200,
      me,
      { type: 'users', id: user.json.id },
      await call('PATCH', `/users/${user.json.id}`, admin.token, { nombre: 'Operadora' }),
    );
    await expectWrite(
      'changePassword',
      204,
      me,
      { type: 'users', id: user.json.id },
      await call('POST', `/users/${user.json.id}/change-password`, admin.token, { new_password: 'yet-another-password' }),
    );
    await expectWrite('deleteUser', 200, me, { type: 'users', id: user.json.id }, await call('DELETE', `/users/${user.json.id}`, admin.token));

    // Everything else, by the API key.
    const ak = { type: 'api_key', id: key.id };
    const tenant = { type: 'tenants', id: admin.tenant.id };
    await expectWrite('updateTenant', 200, ak, tenant, await call('PATCH', '/tenants/me', key.key, { accent_color: '#123456' }));
    const form = new FormData();
    form.append('logo', new File([new Uint8Array(LOGO)], 'logo.png'));
    const logo = await t.app.request('/api/v1/tenants/me/logo', { method: 'PUT', headers: { authorization: `Bearer ${key.key}` }, body: form });
    await expectWrite('uploadTenantLogo', 200, ak, tenant, {
      status: logo.status,
      text: await logo.text(),
      requestId: logo.headers.get('x-request-id')!,
    } as any);
    await expectWrite('deleteTenantLogo', 200, ak, tenant, await call('DELETE', '/tenants/me/logo', key.key));

    const csdRes = await t.app.request('/api/v1/csds', {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}` },
      body: csdForm(csdFiles('EKU9003173C9_CSD', 'EKU9003173C9')),
    });
    const csd = (await csdRes.json()) as any;
    await expectWrite('uploadCsd', 201, ak, { type: 'csds', id: csd.id }, {
      status: csdRes.status,
      text: JSON.stringify(csd),
      requestId: csdRes.headers.get('x-request-id')!,
    } as any);
    await expectWrite('deactivateCsd', 200, ak, { type: 'csds', id: csd.id }, await call('POST', `/csds/${csd.id}/deactivate`, key.key));
    await expectWrite('activateCsd', 200, ak, { type: 'csds', id: csd.id }, await call('POST', `/csds/${csd.id}/activate`, key.key));

    // PUT /fiel: stored, then replaced (one operation, two actions); DELETE, and a DELETE of none.
    const putFiel = async () => {
      const res = await t.app.request('/api/v1/fiel', {
        method: 'PUT',
        headers: { authorization: `Bearer ${key.key}` },
        body: csdForm(csdFiles('EKU9003173C9_FIEL', 'EKU9003173C9')),
      });
      const text = await res.text();
      return { status: res.status, text, json: JSON.parse(text), requestId: res.headers.get('x-request-id')! } as any;
    };
    const fiel = await putFiel();
    await expectWrite('putFiel', 201, ak, { type: 'fiel', id: fiel.json.id }, fiel);
    const replacing = await putFiel();
    await expectWrite('replaceFiel', 200, ak, { type: 'fiel', id: replacing.json.id }, replacing);
    // POST /sat-downloads: the request, with the tenant's FIEL (test mode: the simulator answers).
    const download = await call('POST', '/sat-downloads', key.key, { direction: 'issued', kind: 'metadata', desde: '2025-01-01', hasta: '2025-01-31' });
    await expectWrite('createSatDownload', 202, ak, { type: 'sat-downloads', id: download.json.data[0].id }, download);
    // PUT /sat-downloads/sync: the environment's one setting, named by its path.
    await expectWrite(
      'putSatDownloadSync',
      200,
      ak,
      { type: 'sat-downloads', id: 'sync' },
      await call('PUT', '/sat-downloads/sync', key.key, { enabled: true }),
    );
    await expectWrite('deleteFiel', 204, ak, { type: 'fiel', id: replacing.json.id }, await call('DELETE', '/fiel', key.key));
    await expectWrite('deleteFiel', 204, ak, { type: 'fiel', id: null }, await call('DELETE', '/fiel', key.key));

    // POST /received-cfdis: one operation for several documents, so no one resource id (each is in the answer).
    const received = await t.app.request('/api/v1/received-cfdis', {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/xml' },
      body: '<documento/>',
    });
    await expectWrite('uploadReceivedCfdis', 200, ak, { type: 'received-cfdis', id: null }, {
      status: received.status,
      text: await received.text(),
      requestId: received.headers.get('x-request-id')!,
    } as any);

    // POST /sat-lists/69b: the tenant's own Lista 69-B (the resource is the list, named by its path).
    const listRes = await t.app.request('/api/v1/sat-lists/69b', {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'text/csv' },
      body: 'fecha\r\ntitulo\r\nNo,RFC,Nombre,Situación\r\n1,AUD900101AB1,AUDITADO,Definitivo\r\n',
    });
    const listText = await listRes.text();
    await expectWrite('uploadLista69b', 200, ak, { type: 'sat-lists', id: '69b' }, {
      status: listRes.status,
      text: listText,
      requestId: listRes.headers.get('x-request-id')!,
    } as any);

    // POST /received-cfdis/{id}/refresh: a received CFDI (a row as intake writes one); the sandbox SAT does not know it.
    const receivedId = `rcv_${crypto.randomUUID().replaceAll('-', '').slice(0, 26)}`;
    await t.db.insert(receivedCfdis).values({
      id: receivedId,
      tenantId: admin.tenant.id,
      environment: 'test',
      uuid: crypto.randomUUID().toUpperCase(),
      sha256: '0'.repeat(64),
      xml: Buffer.from('<cfdi:Comprobante/>'),
      version: '4.0',
      validation: 'invalid',
      checks: [],
      source: 'upload',
    });
    await expectWrite(
      'refreshReceivedCfdi',
      200,
      ak,
      { type: 'received-cfdis', id: receivedId },
      await call('POST', `/received-cfdis/${receivedId}/refresh`, key.key),
    );

    const client = await call('POST', '/clients', key.key, DEMO_INVOICE.receptor);
    await expectWrite('createClient', 201, ak, { type: 'clients', id: client.json.id }, client);
    await expectWrite(
      'updateClient',
      200,
      ak,
      { type: 'clients', id: client.json.id },
      await call('PATCH', `/clients/${client.json.id}`, key.key, { email: 'pagos@cva.example' }),
    );
    await expectWrite('deleteClient', 200, ak, { type: 'clients', id: client.json.id }, await call('DELETE', `/clients/${client.json.id}`, key.key));
    const series = await call('POST', '/series', key.key, { serie: 'AUD' });
    await expectWrite('createSeries', 201, ak, { type: 'series', id: series.json.id }, series);
    await expectWrite(
      'updateSeries',
      200,
      ak,
      { type: 'series', id: series.json.id },
      await call('PATCH', `/series/${series.json.id}`, key.key, { folio_inicial: 100 }),
    );

    const validated = await call('POST', '/cfdis/validate', key.key, DEMO_INVOICE);
    ok(validated, 200, 'validateCfdi'); // a check, not a write: no entry
    const cfdi = await call('POST', '/cfdis', key.key, DEMO_INVOICE);
    await expectWrite('issueCfdi', 201, ak, { type: 'cfdis', id: cfdi.json.id }, cfdi);
    const emailed = await call('POST', `/cfdis/${cfdi.json.id}/email`, key.key, { to: ['cuentas@example.com'] });
    await expectWrite('emailCfdi', 202, ak, { type: 'cfdis', id: cfdi.json.id }, emailed);
    const cancel = await call('POST', `/cfdis/${cfdi.json.id}/cancel`, key.key, { motivo: '02' });
    await expectWrite('cancelCfdi', cancel.status, ak, { type: 'cfdis', id: cfdi.json.id }, cancel);
    // Withdrawn before the slow attempt's stamp lands (this app's sandboxSlowMs), the audit entries checked after.
    const queued = await call('POST', '/cfdis', key.key, DEMO_INVOICE, { 'x-sandbox-scenario': 'pac_slow' });
    const withdrawn = await call('POST', `/cfdis/${queued.json.id}/withdraw`, key.key);
    await expectWrite('issueCfdi', 202, ak, { type: 'cfdis', id: queued.json.id }, queued);
    await expectWrite('withdrawCfdi', 200, ak, { type: 'cfdis', id: queued.json.id }, withdrawn);

    const retencionBody = RetencionExamples.retencion_arrendamiento.value;
    ok(await call('POST', '/retenciones/validate', key.key, retencionBody), 200, 'validateRetencion'); // a check: no entry
    const retencion = await call('POST', '/retenciones', key.key, retencionBody);
    await expectWrite('issueRetencion', 201, ak, { type: 'retenciones', id: retencion.json.id }, retencion);
    // The batch: an entry per retención created (in its transaction), then one for the call.
    const batch = await call('POST', '/retenciones/batch', key.key, RetencionBatchExamples.retencion_batch_plataformas.value);
    ok(batch, 200, 'issueRetencionBatch');
    for (const item of batch.json.results)
      expected.push({ action: 'issueRetencionBatch', status: 201, requestId: batch.requestId, actor: ak, resource: { type: 'retenciones', id: item.id } });
    await expectWrite('issueRetencionBatch', 200, ak, { type: 'retenciones', id: 'batch' }, batch);
    const retencionRef = { type: 'retenciones', id: retencion.json.id };
    const retencionEmailed = await call('POST', `/retenciones/${retencion.json.id}/email`, key.key, { to: ['cuentas@example.com'] });
    await expectWrite('emailRetencion', 202, ak, retencionRef, retencionEmailed);
    const retencionCancelled = await call('POST', `/retenciones/${retencion.json.id}/cancel`, key.key, { motivo: '02' });
    await expectWrite('cancelRetencion', 200, ak, retencionRef, retencionCancelled);

    const ticket = { forma_pago: '01', conceptos: DEMO_INVOICE.conceptos };
    const receipt = await call('POST', '/receipts', key.key, ticket);
    await expectWrite('createReceipt', 201, ak, { type: 'receipts', id: receipt.json.id }, receipt);
    const invoiced = await call('POST', `/receipts/${receipt.json.id}/invoice`, key.key, { receptor: DEMO_INVOICE.receptor });
    await expectWrite('invoiceReceipt', 201, ak, { type: 'receipts', id: receipt.json.id }, invoiced);
    const returned = await call('POST', '/receipts', key.key, ticket);
    await expectWrite('createReceipt', 201, ak, { type: 'receipts', id: returned.json.id }, returned);
    await expectWrite(
      'cancelReceipt',
      200,
      ak,
      { type: 'receipts', id: returned.json.id },
      await call('POST', `/receipts/${returned.json.id}/cancel`, key.key),
    );
    const sold = await call('POST', '/receipts', key.key, ticket);
    await expectWrite('createReceipt', 201, ak, { type: 'receipts', id: sold.json.id }, sold);
    const day = sold.json.fecha.slice(0, 10);
    await expectWrite(
      'issueGlobalInvoice',
      201,
      ak,
      { type: 'receipts', id: 'global-invoice' },
      await call('POST', '/receipts/global-invoice', key.key, { periodicidad: '01', desde: day, hasta: day }),
    );
    await expectWrite(
      'updateReceiptSettings',
      200,
      ak,
      { type: 'receipts', id: 'settings' },
      await call('PATCH', '/receipts/settings', key.key, { auto_global_invoice: '04' }),
    );

    const hook = await call('POST', '/webhooks', key.key, { url: receiver.url, events: ['cfdi.timbrado'] });
    await expectWrite('createWebhook', 201, ak, { type: 'webhooks', id: hook.json.id }, hook);
    await expectWrite(
      'updateWebhook',
      200,
      ak,
      { type: 'webhooks', id: hook.json.id },
      await call('PATCH', `/webhooks/${hook.json.id}`, key.key, { events: ['*'] }),
    );
    const tested = await expectWrite(
      'testWebhook',
      200,
      ak,
      { type: 'webhooks', id: hook.json.id },
      await call('POST', `/webhooks/${hook.json.id}/test`, key.key),
    );
    await expectWrite(
      'retryWebhookDelivery',
      200,
      ak,
      { type: 'webhooks', id: hook.json.id },
      await call('POST', `/webhooks/${hook.json.id}/deliveries/${tested.json.id}/retry`, key.key),
    );
    await expectWrite(
      'rotateWebhookSecret',
      200,
      ak,
      { type: 'webhooks', id: hook.json.id },
      await call('POST', `/webhooks/${hook.json.id}/rotate-secret`, key.key, { expire_previous_in_hours: 1 }),
    );
    await expectWrite('deleteWebhook', 200, ak, { type: 'webhooks', id: hook.json.id }, await call('DELETE', `/webhooks/${hook.json.id}`, key.key));
    await expectWrite('deleteCsd', 200, ak, { type: 'csds', id: csd.id }, await call('DELETE', `/csds/${csd.id}`, key.key));

    // The log, oldest first, is exactly the writes above, field for field. A batch's items commit side by side on
    // PostgreSQL (a transaction each): their entries are compared in the order of their retenciones' ids.
    const entries = inItemOrder(
      (await auditAll(key.key)).reverse(),
      (e) => e.action === 'issueRetencionBatch' && e.status === 201,
      (e) => e.resource.id ?? '',
    );
    inItemOrder(
      expected,
      (e) => e.action === 'issueRetencionBatch' && e.status === 201,
      (e) => e.resource.id ?? '',
    );
    expect(entries.map((e) => [e.action, e.request_id])).toEqual(expected.map((e) => [e.action, e.requestId]));
    for (const [i, e] of entries.entries()) {
      const want = expected[i]!;
      expect({ action: e.action, status: e.status, actor: e.actor, resource: e.resource }).toEqual({
        action: want.action,
        status: want.status,
        actor: want.actor,
        resource: want.resource,
      });
      expect(e.environment).toBe('test');
      expect(e.id).toMatch(/^aud_/);
      expect(Date.parse(e.created_at)).not.toBeNaN();
      expect(e.path).toStartWith('/api/v1/');
    }

    // No write route forgotten: every non-GET operation the document has was exercised and recorded.
    const doc = (await t.call('GET', '/openapi.json')).json;
    const writes = Object.values<any>(doc.paths).flatMap((ops) =>
      Object.entries<any>(ops)
        .filter(([m]) => m !== 'get')
        .map(([, op]) => op.operationId as string),
    );
    const recorded = new Set(entries.map((e) => e.action));
    // The portal's invoice has no credential: its entry (actor api_key "portal") is checked in tests/portal/portal.test.ts.
    const checks = ['validateCfdi', 'validateRetencion'];
    expect(writes.filter((op) => !checks.includes(op) && op !== 'invoicePortalTicket' && !recorded.has(op)).sort()).toEqual([]);
    expect(checks.filter((op) => recorded.has(op))).toEqual([]);
  });

  test('reads, refused writes and an Idempotency-Key replay leave no entry', async () => {
    const before = (await auditAll(key.key)).length;
    await call('GET', '/cfdis', key.key);
    await call('GET', '/tenants/me', key.key);
    expect((await call('POST', '/clients', key.key, { rfc: 'not an rfc' })).status).toBe(400);
    expect((await call('DELETE', '/clients/cli_01jd2m3k4n5p6q7r8s9t0v1w2x', key.key)).status).toBe(404);
    expect((await call('POST', '/auth/login', undefined, { email: admin.email, password: 'wrong-password-here' })).status).toBe(401);
    expect((await call('POST', '/auth/logout', undefined, { refresh_token: 'rt_unknown' })).status).toBe(204); // changes nothing
    const viewer = await userWithRole(t, admin.token, 'VIEWER');
    const afterViewer = (await auditAll(key.key)).length; // creating the viewer and its login are two writes
    expect(afterViewer).toBe(before + 2);
    expect((await call('POST', '/series', viewer.token, { serie: 'NO' })).status).toBe(403);

    const first = await call('POST', '/series', key.key, { serie: 'IDEM' }, { 'idempotency-key': 'audit-idem-1' });
    const replay = await call('POST', '/series', key.key, { serie: 'IDEM' }, { 'idempotency-key': 'audit-idem-1' });
    expect(replay.json.id).toBe(first.json.id);
    const entries = await auditAll(key.key);
    expect(entries.length).toBe(afterViewer + 1);
    expect(entries[0]).toMatchObject({ action: 'createSeries', request_id: first.requestId, resource: { type: 'series', id: first.json.id } });
  });

  /**
   * The write transactions opened on `app`'s database while `fn` runs (SQLite; PostgreSQL: undefined, its tests check
   * the entries only). `app` must have no job worker that wakes by itself (wakeOnEnqueue: false): a claim of its
   * would be counted as the request's.
   */
  async function beginsOf(app: TestApp, fn: () => Promise<void>): Promise<number | undefined> {
    const sqlite = TEST_ENGINE === 'sqlite' ? sqliteConnection(app.db) : undefined;
    const exec = sqlite?.exec;
    if (!sqlite || !exec) return void (await fn());
    let begins = 0;
    sqlite.exec = (source: string) => {
      if (/^begin immediate/i.test(source)) begins++;
      return exec.call(sqlite, source);
    };
    try {
      await fn();
    } finally {
      sqlite.exec = exec;
    }
    return begins;
  }

  test('a sandbox invoice and its entry are written by one transaction; a queued one gets its entry after the answer', async () => {
    const quiet = await createTestApp({ wakeOnEnqueue: false });
    const issuing = await issuer(quiet, READY);
    let stamped!: Awaited<ReturnType<typeof call>>;
    const begins = await beginsOf(quiet, async () => {
      stamped = await call('POST', '/cfdis', issuing.key, DEMO_INVOICE, {}, quiet);
    });
    expect(stamped.status).toBe(201);
    if (begins !== undefined) expect(begins).toBe(1);
    const queued = await call('POST', '/cfdis', issuing.key, DEMO_INVOICE, { 'x-sandbox-scenario': 'pac_unavailable' }, quiet);
    expect(queued.status).toBe(202);
    const entries = await auditAll(issuing.key, '&action=issueCfdi', quiet);
    expect(entries.map((e) => [e.request_id, e.status, e.resource.id])).toEqual([
      [queued.requestId, 202, queued.json.id],
      [stamped.requestId, 201, stamped.json.id],
    ]);
  });

  test("a receipt invoiced through the API or the portal: the CFDI, the receipt's mark and the entry in one transaction", async () => {
    const quiet = await createTestApp({ wakeOnEnqueue: false });
    const issuing = await issuer(quiet, READY);
    const ticket = { forma_pago: '01', conceptos: DEMO_INVOICE.conceptos };
    const receipt = (await call('POST', '/receipts', issuing.key, ticket, {}, quiet)).json;
    let invoiced!: Awaited<ReturnType<typeof call>>;
    const apiBegins = await beginsOf(quiet, async () => {
      invoiced = await call('POST', `/receipts/${receipt.id}/invoice`, issuing.key, { receptor: DEMO_INVOICE.receptor }, {}, quiet);
    });
    expect(invoiced.status).toBe(201);
    if (apiBegins !== undefined) expect(apiBegins).toBe(1);

    const sold = (await call('POST', '/receipts', issuing.key, ticket, {}, quiet)).json;
    const clave = new URL(sold.self_invoice_url).searchParams.get('clave');
    let portal!: Response;
    const portalBegins = await beginsOf(quiet, async () => {
      portal = await quiet.app.request(`/portal/${issuing.tenant.id}/ticket/invoice`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clave, receptor: DEMO_INVOICE.receptor }),
      });
    });
    expect(portal.status).toBe(201);
    if (portalBegins !== undefined) expect(portalBegins).toBe(1);

    const entries = await auditAll(issuing.key, '', quiet);
    const written = entries.filter((e) => e.action === 'invoiceReceipt' || e.action === 'invoicePortalTicket');
    expect(written.map((e) => [e.action, e.request_id, e.status, e.actor.id, e.resource.id])).toEqual([
      ['invoicePortalTicket', portal.headers.get('x-request-id'), 201, 'portal', sold.id],
      ['invoiceReceipt', invoiced.requestId, 201, expect.any(String), receipt.id],
    ]);
  });

  test('ADMIN only; another tenant sees none of it; filters and cursor pagination, newest first', async () => {
    for (const role of ['OPERATOR', 'VIEWER'] as const) {
      const u = await userWithRole(t, admin.token, role);
      const res = await t.call('GET', '/audit-log', { token: u.token });
      expect(res.status).toBe(403);
      expect(res.json.error.code).toBe('HTTP_403');
    }
    expect((await t.call('GET', '/audit-log')).status).toBe(401);

    const other = await issuer(t, { tenant: TENANTS.FUNK });
    const otherKey = await other.createKey();
    const theirs = await auditAll(otherKey.key);
    expect(theirs.map((e) => e.action).sort()).toEqual(['createApiKey', 'registerTenant']);
    expect(theirs.every((e) => e.actor.id === other.user.id)).toBe(true);
    const ours = await auditAll(key.key);
    expect(ours.some((e) => e.actor.id === other.user.id || e.resource.id === otherKey.id)).toBe(false);
    // Filtering by the other tenant's ids finds nothing in ours, and the reverse.
    expect(await auditAll(otherKey.key, `&actor_id=${key.id}`)).toEqual([]);
    expect(await auditAll(key.key, `&resource_id=${other.tenant.id}`)).toEqual([]);

    const byKey = await auditAll(key.key, `&actor_id=${key.id}`);
    expect(byKey.length).toBeGreaterThan(10);
    expect(byKey.every((e) => e.actor.id === key.id)).toBe(true);
    const cancels = await auditAll(key.key, '&action=cancelCfdi');
    expect(cancels).toHaveLength(1);
    const onCfdi = await auditAll(key.key, `&resource_id=${cancels[0].resource.id}`);
    expect(onCfdi.map((e) => e.action)).toEqual(['cancelCfdi', 'emailCfdi', 'issueCfdi']);

    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await t.call('GET', `/audit-log?limit=7${cursor ? `&cursor=${cursor}` : ''}`, { token: key.key });
      expect(page.json.data.length).toBeLessThanOrEqual(7);
      pages.push(...page.json.data.map((e: any) => e.id));
      cursor = page.json.pagination.next_cursor;
    } while (cursor);
    expect(pages).toEqual(ours.map((e) => e.id));
    expect([...pages].sort().reverse()).toEqual(pages);
    expect((await t.call('GET', '/audit-log?cursor=nonsense', { token: key.key })).status).toBe(422);
    expect((await t.call('GET', '/audit-log?limit=0', { token: key.key })).status).toBe(422);
  });

  test('append-only: the database refuses to change or delete an entry', async () => {
    const count = await t.count(auditLog);
    expect(count).toBeGreaterThan(0);
    // The engine's refusal, under the query error Drizzle may wrap it in.
    const refusal = (statement: SQL) =>
      t.exec(statement).then(
        () => 'accepted',
        (err) => [err, err.cause].map((e) => e?.message).join(' / '),
      );
    expect(await refusal(sql`update audit_log set actor_id = 'someone-else'`)).toContain('audit_log is append-only');
    expect(await refusal(sql`delete from audit_log`)).toContain('audit_log is append-only');
    expect(await t.count(auditLog)).toBe(count);
  });
});
