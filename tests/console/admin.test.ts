import { afterAll, describe, expect, test } from 'bun:test';
import { createTestApp, csdFiles, issuer, READY, type TestApp } from '../helpers.ts';
import { signIn } from './sign-in.ts';

/**
 * Issue 40's administration screens over HTTP: each lists what the API lists, an ADMIN's create goes through, a
 * VIEWER's forged change is refused by the API (403), another tenant's id is 404, tenant text is escaped.
 */
const t = await createTestApp({ webhookAllowPrivate: true, webhookRetrySchedule: Array(20).fill(60) });
const a = await issuer(t, READY);
const b = await issuer(t, { ...READY, tenant: { nombre: 'OTRO COMERCIO' } });
const viewer = await a.userWithRole('VIEWER');
const admin = await signIn(t.app, a.email, a.password);
const seen = await signIn(t.app, viewer.email, viewer.password);

/** A receiver on loopback that answers what the test says: 500 first, then 200. */
const answers: number[] = [];
const receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('answer <b>', { status: answers.shift() ?? 200 }) });
afterAll(() => receiver.stop(true));

const get = (app: TestApp['app'], path: string, cookie: string) => app.request(path, { headers: { cookie } });
const post = (path: string, cookie: string, fields: Record<string, string>) =>
  t.app.request(path, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
const as = (who: { cookie: string; html: string }) => ({
  get: async (path: string) => {
    const res = await get(t.app, path, who.cookie);
    return { status: res.status, html: await res.text(), location: res.headers.get('location') };
  },
  post: async (path: string, fields: Record<string, string> = {}) => {
    const res = await post(path, who.cookie, { csrf: csrfOf(who.html), ...fields });
    return { status: res.status, html: await res.text(), location: res.headers.get('location') };
  },
});
const A = as(admin);
const V = as(seen);
const XSS = '<script>alert(1)</script>';
const ESCAPED = '&#60;script&#62;alert(1)&#60;/script&#62;';

describe('the console: administration screens', () => {
  test('navigation: every administration screen is linked', () => {
    for (const path of [
      '/console/webhooks',
      '/console/audit-log',
      '/console/csds',
      '/console/api-keys',
      '/console/users',
      '/console/series',
      '/console/clients',
    ])
      expect(admin.html).toContain(`href="${path}"`);
    // Webhooks and the audit log are the API's to ADMIN only: another role is not offered them.
    expect(seen.html).not.toContain('href="/console/webhooks"');
    expect(seen.html).not.toContain('href="/console/audit-log"');
    expect(seen.html).toContain('href="/console/csds"');
  });

  test('webhooks: create (the secret once), a failed delivery with its answer, replayed; VIEWER refused; foreign 404', async () => {
    const url = `http://127.0.0.1:${receiver.port}/hook`;
    const created = await A.post('/console/webhooks', { url, events: 'cfdi.timbrado, cfdi.cancelado' });
    expect(created.status).toBe(200);
    const secret = /id="webhook-secret">([^<]+)</.exec(created.html)![1]!;
    expect(secret).toMatch(/^whsec_/);
    const [hook] = (await t.call('GET', '/webhooks', { token: a.key })).json.data as { id: string; url: string; events: string[] }[];
    expect(hook).toMatchObject({ url, events: ['cfdi.timbrado', 'cfdi.cancelado'] });
    const list = await A.get('/console/webhooks');
    expect(list.html).toContain(url);
    expect(list.html).not.toContain(secret); // never again
    expect((await A.get(`/console/webhooks/${hook!.id}`)).html).not.toContain(secret);

    // A bad URL: the API's refusal on the screen, 400.
    const bad = await A.post('/console/webhooks', { url: 'ftp://nowhere', events: '*' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('id="form-error"');
    expect(bad.html).toContain('url');

    // The receiver answers 500: the delivery failed, its answer shown (escaped); replayed, it is delivered.
    answers.push(500);
    expect((await A.post(`/console/webhooks/${hook!.id}/test`)).status).toBe(303);
    const failed = await A.get(`/console/webhooks/${hook!.id}`);
    const delivery = /<article class="delivery" data-id="([^"]+)" data-state="pendiente"/.exec(failed.html)![1]!;
    expect(failed.html).toContain('answer &#60;b&#62;');
    expect(failed.html).toContain(`id="replay-${delivery}"`);
    const replayed = await A.post(`/console/webhooks/${hook!.id}/deliveries/${delivery}/retry`);
    expect(replayed).toMatchObject({ status: 303, location: `/console/webhooks/${hook!.id}` });
    const after = await A.get(`/console/webhooks/${hook!.id}`);
    expect(after.html).toContain(`data-id="${delivery}" data-state="entregado"`);
    expect(after.html).not.toContain(`id="replay-${delivery}"`);

    // Pause and resume (PATCH estado).
    expect((await A.post(`/console/webhooks/${hook!.id}/state`, { estado: 'PAUSADO' })).status).toBe(303);
    expect((await t.call('GET', `/webhooks/${hook!.id}`, { token: a.key })).json.estado).toBe('PAUSADO');
    expect((await A.post(`/console/webhooks/${hook!.id}/state`, { estado: 'ACTIVO' })).status).toBe(303);

    // A VIEWER: the API lets only an ADMIN (or a key) see webhooks; a forged change is refused too.
    expect((await V.get('/console/webhooks')).status).toBe(403);
    const forged = await V.post('/console/webhooks', { url, events: '*' });
    expect(forged.status).toBe(403);
    expect((await V.post(`/console/webhooks/${hook!.id}/delete`)).status).toBe(403);
    expect((await t.call('GET', '/webhooks', { token: a.key })).json.data).toHaveLength(1);

    // Another tenant's webhook: 404.
    const theirs = (await t.call('POST', '/webhooks', { token: b.key, body: { url, events: ['cfdi.cancelado'] } })).json.id as string;
    expect((await A.get(`/console/webhooks/${theirs}`)).status).toBe(404);
    expect((await A.post(`/console/webhooks/${theirs}/delete`)).status).toBe(404);
    expect((await t.call('GET', `/webhooks/${theirs}`, { token: b.key })).status).toBe(200);

    // Deleted.
    expect((await A.post(`/console/webhooks/${hook!.id}/delete`)).status).toBe(303);
    expect((await t.call('GET', '/webhooks', { token: a.key })).json.data).toHaveLength(0);
  });

  test("audit log: the API's entries and filters for an ADMIN; a VIEWER is refused (the API's rule)", async () => {
    expect((await A.post('/console/series', { serie: 'AUD' })).status).toBe(303);
    const all = await A.get('/console/audit-log');
    expect(all.status).toBe(200);
    expect(all.html).toContain('createSeries');
    const only = await A.get('/console/audit-log?action=createSeries');
    const actions = [...only.html.matchAll(/<td data-label="Operación">([^<]+)</g)].map((m) => m[1]);
    expect(actions.length).toBeGreaterThan(0);
    expect(new Set(actions)).toEqual(new Set(['createSeries']));
    expect(only.html).toContain('value="createSeries"');
    const refused = await V.get('/console/audit-log');
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('Tu rol no permite ver esta página.');
    // Another tenant's writes are not in A's log.
    await t.call('POST', '/series', { token: b.key, body: { serie: 'THEIRS' } });
    expect((await A.get('/console/audit-log')).html).not.toContain('THEIRS');
  });

  test("CSDs: upload (multipart through the console), the API's checks on the page, activate and deactivate; VIEWER sees no button and is refused", async () => {
    const c = await issuer(t, { keys: ['test'] });
    const fresh = await signIn(t.app, c.email, c.password);
    const files = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
    const upload = (password: string, cookie = fresh.cookie, csrf = csrfOf(fresh.html)) => {
      const form = new FormData();
      form.append('csrf', csrf);
      form.append('cer', new Blob([new Uint8Array(files.cer)]), 'EKU9003173C9.cer');
      form.append('key', new Blob([new Uint8Array(files.key)]), 'EKU9003173C9.key');
      form.append('password', password);
      return t.app.request('/console/csds', { method: 'POST', headers: { cookie }, body: form });
    };
    const wrong = await upload('not-the-password');
    expect(wrong.status).toBe(400);
    const refusal = await wrong.text();
    expect(refusal).toContain('id="form-error"');
    expect(refusal).toContain('password');
    const ok = await upload(files.password);
    expect(ok.status).toBe(303);
    const [csd] = (await t.call('GET', '/csds', { token: c.key })).json.data as { id: string; status: string; valid_to: string }[];
    expect(csd!.status).toBe('active');
    const list = await as(fresh).get('/console/csds');
    expect(list.html).toContain(csd!.valid_to);
    expect(list.html).toContain(`id="deactivate-${csd!.id}"`);
    expect((await as(fresh).post(`/console/csds/${csd!.id}/deactivate`)).status).toBe(303);
    expect((await t.call('GET', `/csds/${csd!.id}`, { token: c.key })).json.status).toBe('inactive');
    expect((await as(fresh).post(`/console/csds/${csd!.id}/activate`)).status).toBe(303);
    expect((await t.call('GET', `/csds/${csd!.id}`, { token: c.key })).json.status).toBe('active');

    // A VIEWER sees the list, no button; its forged upload and deactivation are refused.
    const [ours] = (await t.call('GET', '/csds', { token: a.key })).json.data as { id: string }[];
    const listed = await V.get('/console/csds');
    expect(listed.status).toBe(200);
    expect(listed.html).toContain(ours!.id);
    expect(listed.html).not.toContain('id="new-csd"');
    expect(listed.html).not.toContain(`id="deactivate-${ours!.id}"`);
    expect((await upload(files.password, seen.cookie, csrfOf(seen.html))).status).toBe(403);
    expect((await V.post(`/console/csds/${ours!.id}/deactivate`)).status).toBe(403);
    // Another tenant's CSD: 404.
    expect((await A.post(`/console/csds/${csd!.id}/deactivate`)).status).toBe(404);
    expect((await t.call('GET', `/csds/${csd!.id}`, { token: c.key })).json.status).toBe('active');
  });

  test('the body limit: 16 KiB on every console form, more on the CSD upload only', async () => {
    const big = 'x'.repeat(40 * 1024);
    expect((await A.post('/console/clients', { nombre: big })).status).toBe(413);
    const res = await post('/console/csds', admin.cookie, { csrf: csrfOf(admin.html), password: big });
    expect(res.status).toBe(400); // reached the API: no files
    expect(await res.text()).toContain('cer');
    expect((await post('/console/csds', admin.cookie, { csrf: csrfOf(admin.html), password: 'x'.repeat(200 * 1024) })).status).toBe(413);
  });

  test('API keys: created (shown once, it works), listed without the secret, revoked (it no longer works); VIEWER refused', async () => {
    const created = await A.post('/console/api-keys', { name: `ERP ${XSS}`, environment: 'test' });
    expect(created.status).toBe(200);
    const key = /id="api-key-secret" readonly value="([^"]+)"/.exec(created.html)![1]!;
    expect(key).toMatch(/^sk_test_/);
    expect(created.html).toContain(ESCAPED);
    expect((await t.call('GET', '/cfdis', { token: key })).status).toBe(200);
    const list = await A.get('/console/api-keys');
    expect(list.html).not.toContain(key);
    expect(list.html).not.toContain(XSS);
    const id = /<tr data-id="([^"]+)"><td data-label="Nombre">ERP &#60;script/.exec(list.html)![1]!;

    // A VIEWER: sees the list, no button; its forged create and revoke are refused.
    const listed = await V.get('/console/api-keys');
    expect(listed.html).toContain(id);
    expect(listed.html).not.toContain('id="new-api-key"');
    expect(listed.html).not.toContain(`id="revoke-${id}"`);
    expect((await V.post('/console/api-keys', { name: 'forged', environment: 'test' })).status).toBe(403);
    expect((await V.post(`/console/api-keys/${id}/revoke`)).status).toBe(403);
    expect((await t.call('GET', '/cfdis', { token: key })).status).toBe(200);
    // Another tenant's key: 404.
    const theirs = await b.createKey('test', 'theirs');
    expect((await A.post(`/console/api-keys/${theirs.id}/revoke`)).status).toBe(404);
    expect((await t.call('GET', '/cfdis', { token: theirs.key })).status).toBe(200);

    expect((await A.post(`/console/api-keys/${id}/revoke`)).status).toBe(303);
    expect((await t.call('GET', '/cfdis', { token: key })).status).toBe(401);
  });

  test("users: add with a role, change the role, remove; the API's rules shown (the last ADMIN); VIEWER refused", async () => {
    const email = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const created = await A.post('/console/users', { email, nombre: `Ana ${XSS}`, password: 'a-long-password-2', role: 'OPERATOR' });
    expect(created.status).toBe(303);
    const users = (await t.call('GET', '/users', { token: a.token })).json.data as { id: string; email: string; role: string }[];
    const user = users.find((u) => u.email === email)!;
    expect(user.role).toBe('OPERATOR');
    const list = await A.get('/console/users');
    expect(list.html).toContain(`Ana ${ESCAPED}`);
    expect(list.html).not.toContain(XSS);
    expect((await A.post(`/console/users/${user.id}/role`, { role: 'VIEWER' })).status).toBe(303);
    expect((await t.call('GET', `/users/${user.id}`, { token: a.token })).json.role).toBe('VIEWER');
    // A short password: the API's refusal on the page.
    const weak = await A.post('/console/users', { email: `x${email}`, nombre: 'X', password: 'short', role: 'VIEWER' });
    expect(weak.status).toBe(400);
    expect(weak.html).toContain('password');
    // The last ADMIN cannot stop being one (409, on the page).
    const last = await A.post(`/console/users/${a.user.id}/role`, { role: 'VIEWER' });
    expect(last.status).toBe(409);
    expect(last.html).toContain('id="form-error"');

    const listed = await V.get('/console/users');
    expect(listed.status).toBe(200);
    expect(listed.html).not.toContain('id="new-user"');
    expect(listed.html).not.toContain(`id="save-role-${user.id}"`);
    expect((await V.post('/console/users', { email: `y${email}`, nombre: 'Y', password: 'a-long-password-3', role: 'ADMIN' })).status).toBe(403);
    expect((await V.post(`/console/users/${viewer.id}/role`, { role: 'ADMIN' })).status).toBe(403);
    expect((await t.call('GET', `/users/${viewer.id}`, { token: a.token })).json.role).toBe('VIEWER');
    expect((await A.post(`/console/users/${b.user.id}/role`, { role: 'VIEWER' })).status).toBe(404);
    expect((await A.post(`/console/users/${b.user.id}/delete`)).status).toBe(404);

    expect((await A.post(`/console/users/${user.id}/delete`)).status).toBe(303);
    expect((await t.call('GET', `/users/${user.id}`, { token: a.token })).status).toBe(404);
  });

  test("series: create, edit, the API's refusal beside the form; VIEWER sees and is refused; foreign 404", async () => {
    expect((await A.post('/console/series', { serie: 'CON', folio_inicial: '100', descripcion: `Mostrador ${XSS}` })).status).toBe(303);
    const list = await A.get('/console/series');
    expect(list.html).toContain(`Mostrador ${ESCAPED}`);
    const series = ((await t.call('GET', '/series', { token: a.key })).json.data as { id: string; serie: string; next_folio: number }[]).find(
      (s) => s.serie === 'CON',
    )!;
    expect(series.next_folio).toBe(100);
    const edited = await A.post(`/console/series/${series.id}`, { was: '100', folio_inicial: '250', descripcion: '' });
    expect(edited.status).toBe(303);
    expect((await t.call('GET', `/series/${series.id}`, { token: a.key })).json).toMatchObject({ next_folio: 250, descripcion: null });
    const bad = await A.post('/console/series', { serie: 'BAD', folio_inicial: 'abc' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('folio_inicial');
    const back = await A.post(`/console/series/${series.id}`, { was: '250', folio_inicial: '10' });
    expect(back.status).toBe(409);

    const listed = await V.get('/console/series');
    expect(listed.html).toContain('CON');
    expect(listed.html).not.toContain('id="new-series"');
    expect((await V.get(`/console/series/${series.id}`)).html).not.toContain('id="edit-series"');
    expect((await V.post('/console/series', { serie: 'FORGED' })).status).toBe(403);
    expect((await V.post(`/console/series/${series.id}`, { folio_inicial: '999' })).status).toBe(403);
    const theirs = (await t.call('POST', '/series', { token: b.key, body: { serie: 'B1' } })).json.id as string;
    expect((await A.get(`/console/series/${theirs}`)).status).toBe(404);
    expect((await A.post(`/console/series/${theirs}`, { folio_inicial: '999' })).status).toBe(404);
  });

  test("clients: create, search, edit, delete, the API's SAT rules on the page; VIEWER sees and is refused; foreign 404", async () => {
    const fields = { rfc: 'AAA010101AAA', nombre: `ACCEM ${XSS}`, regimen_fiscal: '601', domicilio_fiscal: '01000', uso_cfdi: 'G03' };
    expect((await A.post('/console/clients', fields)).status).toBe(303);
    const bad = await A.post('/console/clients', { ...fields, rfc: 'NOT-AN-RFC' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('rfc');
    expect(bad.html).toContain('value="NOT-AN-RFC"'); // the form keeps what was typed
    const [client] = (await t.call('GET', '/clients?q=AAA010101AAA', { token: a.key })).json.data as { id: string; nombre: string }[];
    const found = await A.get('/console/clients?q=AAA010101');
    expect(found.html).toContain(client!.id);
    expect(found.html).toContain(`ACCEM ${ESCAPED}`);
    expect(found.html).not.toContain(XSS);
    expect((await A.get('/console/clients?q=ZZZZ')).html).toContain('id="empty"');
    expect((await A.post(`/console/clients/${client!.id}`, { ...fields, nombre: 'ACCEM SERVICIOS EMPRESARIALES', email: 'pagos@example.com' })).status).toBe(
      303,
    );
    expect((await t.call('GET', `/clients/${client!.id}`, { token: a.key })).json.email).toBe('pagos@example.com');

    const listed = await V.get('/console/clients');
    expect(listed.html).toContain(client!.id);
    expect(listed.html).not.toContain('id="new-client"');
    expect((await V.get(`/console/clients/${client!.id}`)).html).not.toContain('id="delete-client"');
    expect((await V.post('/console/clients', fields)).status).toBe(403);
    expect((await V.post(`/console/clients/${client!.id}/delete`)).status).toBe(403);
    const theirs = (await t.call('POST', '/clients', { token: b.key, body: { ...fields, nombre: 'ACCEM SERVICIOS EMPRESARIALES' } })).json.id as string;
    expect((await A.get(`/console/clients/${theirs}`)).status).toBe(404);
    expect((await A.post(`/console/clients/${theirs}/delete`)).status).toBe(404);

    expect((await A.post(`/console/clients/${client!.id}/delete`)).status).toBe(303);
    expect((await t.call('GET', `/clients/${client!.id}`, { token: a.key })).status).toBe(404);
  });
});
