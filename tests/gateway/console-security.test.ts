import { describe, expect, test } from 'bun:test';
import { concepto, createTestApp, csdFiles, csdForm, ICV, ingreso, issuer, READY, type TestApp } from '../helpers.ts';
import { signIn } from '../console/sign-in.ts';

/**
 * The console in the security suite (issue 40): its headers (CSP, framing), its cookie, CSRF on every change, session
 * fixation, sign-out and password change, escaping of tenant-controlled text on every page, and every route's
 * isolation (another tenant's ids → 404), as tests/gateway/security.test.ts has every API operation's.
 */
const t = await createTestApp();
const a = await issuer(t, READY);
const b = await issuer(t, { ...READY, tenant: { nombre: 'OTRO COMERCIO' } });
/** A stamped CFDI of the issuer whose key this is. */
async function issued(key: string, body: Record<string, unknown>): Promise<{ id: string; uuid: string }> {
  const res = await t.call('POST', '/cfdis', { token: key, body });
  expect(res.status).toBe(201);
  return res.json;
}
const theirs = await issued(b.key, ingreso());
const ours = await issued(a.key, ingreso({ conceptos: [concepto({ descripcion: 'Servicio <script>alert(1)</script> & "más"' })] }));
/** An issuer's received CFDI (its own invoice uploaded: stored invalid) and SAT download request (its FIEL on file). */
async function receivedAndDownload(who: typeof a, cfdiId: string) {
  const xml = await (await t.app.request(`/api/v1/cfdis/${cfdiId}/xml`, { headers: { authorization: `Bearer ${who.key}` } })).text();
  const upload = await t.app.request('/api/v1/received-cfdis', {
    method: 'POST',
    headers: { authorization: `Bearer ${who.key}`, 'content-type': 'application/xml' },
    body: xml,
  });
  const received = ((await upload.json()) as { data: { id: string }[] }).data[0]!.id;
  const fiel = await t.app.request('/api/v1/fiel', {
    method: 'PUT',
    headers: { authorization: `Bearer ${who.token}` },
    body: csdForm(csdFiles('EKU9003173C9_FIEL', 'EKU9003173C9')),
  });
  expect(fiel.status).toBe(201);
  const download = await t.call('POST', '/sat-downloads', {
    token: who.key,
    body: { direction: 'issued', kind: 'metadata', desde: '2026-01-01', hasta: '2026-01-31' },
  });
  return { received, satdl: download.json.data[0].id as string };
}
const theirReceivedAndDownload = await receivedAndDownload(b, theirs.id);
const ourReceivedAndDownload = await receivedAndDownload(a, ours.id);

/** An issuer's administered things, one of each kind the administration screens name by id (made through the API). */
async function administered(who: typeof a) {
  const made = async (path: string, body: Record<string, unknown>, token = who.token) => {
    const res = await t.call('POST', path, { token, body });
    expect(res.status).toBe(201);
    return res.json.id as string;
  };
  const csds = (await t.call('GET', '/csds', { token: who.key })).json.data as { id: string }[];
  return {
    // A public address the test never sends to: b issues nothing after this.
    webhook: await made('/webhooks', { url: 'https://8.8.8.8/hook', events: ['cfdi.cancelado'] }),
    csd: csds[0]!.id,
    apiKey: (await who.createKey('test', 'Console')).id,
    user: (await who.userWithRole('OPERATOR')).id,
    series: await made('/series', { serie: 'ADM' }, who.key),
    client: await made(
      '/clients',
      { rfc: 'AAA010101AAA', nombre: 'ACCEM SERVICIOS EMPRESARIALES', regimen_fiscal: '601', domicilio_fiscal: '01000', uso_cfdi: 'G03' },
      who.key,
    ),
  };
}

const ourAdministered = await administered(a);
const theirAdministered = await administered(b);

const get = (app: TestApp['app'], path: string, cookie: string) => app.request(path, { headers: { cookie } });
const post = (app: TestApp['app'], path: string, cookie: string, fields: Record<string, string>) =>
  app.request(path, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;

describe('the console over HTTP', () => {
  test('every page has a strict CSP (no inline script, no framing), no-store and nosniff', async () => {
    const login = await t.app.request('/console/login');
    expect(login.status).toBe(200);
    const csp = login.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(login.headers.get('cache-control')).toBe('no-store');
    expect(login.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await login.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // every script is a file
    const script = /<script src="([^"]+)"/.exec(html)![1]!;
    const asset = await t.app.request(script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');

    const { cookie } = await signIn(t.app, a.email, a.password);
    const list = await get(t.app, '/console/invoices', cookie);
    expect(list.status).toBe(200);
    expect(list.headers.get('content-security-policy')).toBe(csp);
  });

  test('the session cookie: HttpOnly, SameSite=Strict, Path=/console; Secure over HTTPS only', async () => {
    const plain = await signIn(t.app, a.email, a.password);
    expect(plain.setCookie).toContain('HttpOnly');
    expect(plain.setCookie).toContain('SameSite=Strict');
    expect(plain.setCookie).toContain('Path=/console');
    expect(plain.setCookie).not.toContain('Secure');
    const secure = await signIn(t.app, a.email, a.password, 'https://localhost');
    expect(secure.setCookie).toContain('Secure');
    // A client's own X-Forwarded-Proto is not a trusted proxy's: still no Secure over plain HTTP.
    const claimed = await signIn(t.app, a.email, a.password, 'http://localhost', { 'x-forwarded-proto': 'https' });
    expect(claimed.setCookie).not.toContain('Secure');
    // A new session id at each sign-in.
    expect(secure.cookie).not.toBe(plain.cookie);
  });

  test("a wrong password is refused on the page, and counts toward the lockout (the API's rules)", async () => {
    const user = await a.userWithRole('VIEWER');
    const page = await t.app.request('/console/login');
    const seed = page.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = csrfOf(await page.text());
    const attempt = (password: string) => post(t.app, '/console/login', seed, { csrf, email: user.email, password });
    for (let i = 0; i < 5; i++) {
      const res = await attempt('not-the-password');
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('Correo o contraseña incorrectos');
      expect(res.headers.get('set-cookie') ?? '').not.toContain('console_session');
    }
    // Locked out now, the right password too, as POST /auth/login.
    const locked = await attempt(user.password);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBeTruthy();
    expect(await locked.text()).toContain('Demasiados intentos fallidos');
    expect((await t.call('POST', '/auth/login', { body: { email: user.email, password: user.password } })).status).toBe(429);
  });

  test("Secure behind a trusted proxy that says https, never on an untrusted peer's word", async () => {
    const behind = await createTestApp({ trustedProxies: ['10.0.0.1'] });
    const from = (address: string) => ({ requestIP: () => ({ address, family: 'IPv4', port: 40000 }) });
    const seed = async (address: string, proto?: string) =>
      (await behind.app.request('http://localhost/console/login', { headers: proto ? { 'x-forwarded-proto': proto } : {} }, from(address))).headers.get(
        'set-cookie',
      )!;
    expect(await seed('10.0.0.1', 'https')).toContain('Secure');
    expect(await seed('10.0.0.1', 'http')).not.toContain('Secure');
    expect(await seed('10.0.0.1')).not.toContain('Secure');
    expect(await seed('192.0.2.7', 'https')).not.toContain('Secure');
  });

  test('CSRF: a change without the session token, or with the sign-in page token, is refused and does nothing', async () => {
    const { cookie, html } = await signIn(t.app, a.email, a.password);
    const forged = await post(t.app, '/console/logout', cookie, {});
    expect(forged.status).toBe(403);
    const wrong = await post(t.app, '/console/logout', cookie, { csrf: 'x'.repeat(43) });
    expect(wrong.status).toBe(403);
    expect((await get(t.app, '/console/invoices', cookie)).status).toBe(200); // still signed in
    const env = await post(t.app, '/console/environment', cookie, { environment: 'live' });
    expect(env.status).toBe(403);
    expect(env.headers.get('set-cookie') ?? '').not.toContain('console_env');
    // A sign-in form posted without its own token (login CSRF): refused.
    const login = await post(t.app, '/console/login', '', { email: a.email, password: a.password });
    expect(login.status).toBe(403);
    expect(csrfOf(html)).toBeTruthy();
  });

  test("roles are the API's: a VIEWER's withdraw, with its own valid token, is refused (403); an OPERATOR's reaches the API's rule (409)", async () => {
    const viewer = await a.userWithRole('VIEWER');
    const v = await signIn(t.app, viewer.email, viewer.password);
    const detail = await (await get(t.app, `/console/invoices/${ours.id}`, v.cookie)).text();
    expect(detail).not.toContain('id="withdraw"');
    const refused = await post(t.app, `/console/invoices/${ours.id}/withdraw`, v.cookie, { csrf: csrfOf(v.html) });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Tu rol no permite este cambio.');
    const operator = await a.userWithRole('OPERATOR');
    const o = await signIn(t.app, operator.email, operator.password);
    const notQueued = await post(t.app, `/console/invoices/${ours.id}/withdraw`, o.cookie, { csrf: csrfOf(o.html) });
    expect(notQueued.status).toBe(409);
    expect((await t.call('GET', `/cfdis/${ours.id}`, { token: a.key })).json.status).toBe('vigente');
  });

  test('sign out ends the session: the cookie no longer works', async () => {
    const { cookie, html } = await signIn(t.app, a.email, a.password);
    const out = await post(t.app, '/console/logout', cookie, { csrf: csrfOf(html) });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toContain('console_session=;');
    const after = await get(t.app, '/console/invoices', cookie);
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/console/login');
  });

  test('a password change ends the session (the auth service revokes its logins)', async () => {
    const user = await a.userWithRole('OPERATOR');
    const { cookie } = await signIn(t.app, user.email, user.password);
    expect((await get(t.app, '/console/invoices', cookie)).status).toBe(200);
    expect((await t.call('POST', `/users/${user.id}/change-password`, { token: a.token, body: { new_password: 'a-brand-new-password' } })).status).toBe(204);
    expect((await get(t.app, '/console/invoices', cookie)).status).toBe(303);
  });

  test("isolation: one tenant's session cannot open another tenant's invoice or its documents (404)", async () => {
    const { cookie } = await signIn(t.app, a.email, a.password);
    expect((await get(t.app, `/console/invoices/${ours.id}`, cookie)).status).toBe(200);
    for (const path of [`/console/invoices/${theirs.id}`, `/console/invoices/${theirs.id}/xml`, `/console/invoices/${theirs.id}/pdf`]) {
      const res = await get(t.app, path, cookie);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain(theirs.uuid!);
    }
    const list = await (await get(t.app, '/console/invoices', cookie)).text();
    expect(list).toContain(ours.uuid!);
    expect(list).not.toContain(theirs.uuid!);
  });

  test('tenant-controlled text is escaped', async () => {
    const { cookie } = await signIn(t.app, a.email, a.password);
    const html = await (await get(t.app, `/console/invoices/${ours.id}`, cookie)).text();
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('Servicio &#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;más&#34;');
  });

  test("the detail shows a cancelled CFDI's cancellation and its status history (the API's)", async () => {
    const cancelled = await issued(a.key, ingreso());
    const cancel = await t.call('POST', `/cfdis/${cancelled.id}/cancel`, { token: a.key, body: { motivo: '02' } });
    expect([200, 202]).toContain(cancel.status);
    const { cookie } = await signIn(t.app, a.email, a.password);
    const html = await (await get(t.app, `/console/invoices/${cancelled.id}`, cookie)).text();
    expect(html).toContain('id="cancellation"');
    expect(/id="motivo">([^<]*)</.exec(html)![1]).toBe('02');
    const history = (await t.call('GET', `/cfdis/${cancelled.id}/cancellation`, { token: a.key })).json.historial as { reason: string }[];
    expect(history.length).toBeGreaterThan(0);
    for (const move of history) expect(html).toContain(move.reason);
    // A CFDI never cancelled has no such section.
    expect(await (await get(t.app, `/console/invoices/${ours.id}`, cookie)).text()).not.toContain('id="cancellation"');
  });

  test("cursor pages: the API's next_cursor, the filters kept, back to the first page", async () => {
    const { cookie } = await signIn(t.app, a.email, a.password);
    const idsOf = (html: string) => [...html.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]!);
    const seen: string[] = [];
    let html = await (await get(t.app, `/console/invoices?receptor_rfc=${ICV.rfc}&limit=1`, cookie)).text();
    expect(html).not.toContain('id="first-page"');
    for (;;) {
      const ids = idsOf(html);
      expect(ids.length).toBe(1);
      seen.push(...ids);
      const next = /href="([^"]+)" id="next-page"/.exec(html)?.[1];
      if (!next) break;
      expect(next.replaceAll('&#38;', '&')).toContain(`receptor_rfc=${ICV.rfc}`);
      html = await (await get(t.app, next.replaceAll('&#38;', '&'), cookie)).text();
      expect(html).toContain('id="first-page"');
    }
    const api = (await t.call('GET', `/cfdis?receptor_rfc=${ICV.rfc}&limit=100`, { token: a.key })).json.data.map((c: { id: string }) => c.id);
    expect(seen).toEqual(api);
    expect(seen.length).toBeGreaterThan(1);
  });

  test('the list filters through the API: an RFC that matches nothing lists nothing; a bad date says why (400)', async () => {
    const { cookie } = await signIn(t.app, a.email, a.password);
    const none = await (await get(t.app, '/console/invoices?receptor_rfc=XAXX010101000', cookie)).text();
    expect(none).toContain('id="empty"');
    const bad = await get(t.app, '/console/invoices?desde=yesterday', cookie);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('desde');
  });

  test('the environment switch: live is marked on every page (PRODUCCIÓN bar) and asks the API in live', async () => {
    const { cookie, html } = await signIn(t.app, a.email, a.password);
    expect(html).toContain('data-environment="test"');
    expect(html).toContain(ours.uuid); // a test CFDI
    const switched = await post(t.app, '/console/environment', cookie, { csrf: csrfOf(html), environment: 'live', back: '/console/invoices' });
    expect(switched.status).toBe(303);
    expect(switched.headers.get('location')).toBe('/console/invoices');
    const env = switched.headers.get('set-cookie')!.split(';')[0]!;
    expect(env).toBe('console_env=live');
    const live = await (await get(t.app, '/console/invoices', `${cookie}; ${env}`)).text();
    expect(live).toContain('class="envbar live"');
    expect(live).toContain('PRODUCCIÓN');
    expect(live).not.toContain(ours.uuid); // live has its own CFDIs
    // The switch on a page of one invoice comes back to the list (the invoice is of the other environment).
    const detail = await (await get(t.app, `/console/invoices/${ours.id}`, cookie)).text();
    expect(detail).toContain('name="back" value="/console/invoices"');
    // Only a console path to come back to: no open redirect.
    const away = await post(t.app, '/console/environment', cookie, { csrf: csrfOf(html), environment: 'test', back: '//evil.example/x' });
    expect(away.headers.get('location')).toBe('/console/invoices');
  });

  test('English from Accept-Language, Spanish by default, switchable by the link', async () => {
    expect(await (await t.app.request('/console/login')).text()).toContain('Inicia sesión');
    expect(await (await t.app.request('/console/login', { headers: { 'accept-language': 'en-US,en;q=0.9' } })).text()).toContain('Sign in to the console');
    const switched = await t.app.request('/console/language?to=en');
    expect(switched.status).toBe(303);
    const lang = switched.headers.get('set-cookie')!.split(';')[0]!;
    expect(await (await t.app.request('/console/login', { headers: { cookie: lang } })).text()).toContain('Sign in to the console');
  });

  test('without a session every page goes to the sign-in page', async () => {
    for (const path of ['/console/invoices', `/console/invoices/${ours.id}`, `/console/invoices/${ours.id}/pdf`]) {
      const res = await t.app.request(path);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/console/login');
    }
  });

  /**
   * Every route of the console, as the security suite has every API operation: without a session none answers
   * anything but the way to the sign-in page (or 403 for a sign-in without its token), and with tenant A's session
   * every route that names a CFDI answers 404 for tenant B's.
   */
  /** Tenant B's ids, by the kind of thing a route names (`:id`): a screen that names another kind adds it here. */
  const THEIRS = { cfdi: theirs.id, ...theirReceivedAndDownload, ...theirAdministered };
  const OURS: Record<keyof typeof THEIRS, string> = { cfdi: ours.id, ...ourReceivedAndDownload, ...ourAdministered };
  const ROUTES: Record<string, { anonymous: number; foreign?: keyof typeof THEIRS }> = {
    'GET /console': { anonymous: 303 },
    'GET /console/assets/*': { anonymous: 404 },
    'GET /console/language': { anonymous: 303 },
    'GET /console/login': { anonymous: 200 },
    'POST /console/login': { anonymous: 403 },
    'POST /console/logout': { anonymous: 303 },
    'POST /console/environment': { anonymous: 303 },
    'GET /console/invoices': { anonymous: 303 },
    'GET /console/invoices/:id': { anonymous: 303, foreign: 'cfdi' },
    'GET /console/invoices/:id/xml': { anonymous: 303, foreign: 'cfdi' },
    'GET /console/invoices/:id/pdf': { anonymous: 303, foreign: 'cfdi' },
    'POST /console/invoices/:id/withdraw': { anonymous: 303, foreign: 'cfdi' },
    'GET /console/received': { anonymous: 303 },
    'POST /console/received/upload': { anonymous: 303 },
    'GET /console/received/:id': { anonymous: 303, foreign: 'received' },
    'GET /console/received/:id/xml': { anonymous: 303, foreign: 'received' },
    'GET /console/received/:id/pdf': { anonymous: 303, foreign: 'received' },
    'POST /console/received/:id/refresh': { anonymous: 303, foreign: 'received' },
    'GET /console/sat-downloads': { anonymous: 303 },
    'POST /console/sat-downloads': { anonymous: 303 },
    'GET /console/sat-downloads/:id': { anonymous: 303, foreign: 'satdl' },
    'GET /console/receipts': { anonymous: 303 },
    'POST /console/receipts/settings': { anonymous: 303 },
    'GET /console/profile': { anonymous: 303 },
    'POST /console/profile': { anonymous: 303 },
    'POST /console/profile/logo': { anonymous: 303 },
    'GET /console/profile/logo': { anonymous: 303 },
    'GET /console/stats': { anonymous: 303 },
    'GET /console/webhooks': { anonymous: 303 },
    'POST /console/webhooks': { anonymous: 303 },
    'GET /console/webhooks/:id': { anonymous: 303, foreign: 'webhook' },
    'POST /console/webhooks/:id/state': { anonymous: 303, foreign: 'webhook' },
    'POST /console/webhooks/:id/test': { anonymous: 303, foreign: 'webhook' },
    'POST /console/webhooks/:id/delete': { anonymous: 303, foreign: 'webhook' },
    'POST /console/webhooks/:id/deliveries/:delivery_id/retry': { anonymous: 303, foreign: 'webhook' },
    'POST /console/webhooks/:id/rotate-secret': { anonymous: 303, foreign: 'webhook' },
    'GET /console/audit-log': { anonymous: 303 },
    'GET /console/csds': { anonymous: 303 },
    'POST /console/csds': { anonymous: 303 },
    'POST /console/csds/:id/activate': { anonymous: 303, foreign: 'csd' },
    'POST /console/csds/:id/deactivate': { anonymous: 303, foreign: 'csd' },
    'POST /console/csds/:id/delete': { anonymous: 303, foreign: 'csd' },
    'GET /console/api-keys': { anonymous: 303 },
    'POST /console/api-keys': { anonymous: 303 },
    'POST /console/api-keys/:id/revoke': { anonymous: 303, foreign: 'apiKey' },
    'GET /console/users': { anonymous: 303 },
    'POST /console/users': { anonymous: 303 },
    'POST /console/users/:id/role': { anonymous: 303, foreign: 'user' },
    'POST /console/users/:id/delete': { anonymous: 303, foreign: 'user' },
    'GET /console/series': { anonymous: 303 },
    'POST /console/series': { anonymous: 303 },
    'GET /console/series/:id': { anonymous: 303, foreign: 'series' },
    'POST /console/series/:id': { anonymous: 303, foreign: 'series' },
    'GET /console/clients': { anonymous: 303 },
    'POST /console/clients': { anonymous: 303 },
    'GET /console/clients/:id': { anonymous: 303, foreign: 'client' },
    'POST /console/clients/:id': { anonymous: 303, foreign: 'client' },
    'POST /console/clients/:id/delete': { anonymous: 303, foreign: 'client' },
    'GET /console/invoices/new': { anonymous: 303 },
    'POST /console/invoices/new': { anonymous: 303 },
    'POST /console/invoices/new/validate': { anonymous: 303 },
    'GET /console/invoices/new/clients': { anonymous: 303 },
    'GET /console/catalogos/:catalogo': { anonymous: 303 },
    'GET /console/invoices.zip': { anonymous: 303 },
    'GET /console/invoices/:id/sat-status': { anonymous: 303, foreign: 'cfdi' },
    'POST /console/invoices/:id/email': { anonymous: 303, foreign: 'cfdi' },
    'POST /console/invoices/:id/cancel': { anonymous: 303, foreign: 'cfdi' },
  };

  test('the table covers every route of the console', () => {
    expect(
      t.app.console
        .routes()
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    ).toEqual(Object.keys(ROUTES).sort());
  });

  test("every route: without a session only the way to sign in; with A's session, B's CFDI is 404", async () => {
    const { cookie, html } = await signIn(t.app, a.email, a.password);
    const csrf = csrfOf(html);
    for (const [route, expected] of Object.entries(ROUTES)) {
      const [method, path] = route.split(' ') as [string, string];
      const at = (id: string) => path.replace(':id', id).replace(':delivery_id', 'x').replace('*', 'nothing.js');
      const send = (id: string, cookie: string) => (method === 'GET' ? get(t.app, at(id), cookie) : post(t.app, at(id), cookie, { csrf }));
      const anonymous = await send(expected.foreign ? OURS[expected.foreign] : 'x', '');
      expect({ route, status: anonymous.status }).toEqual({ route, status: expected.anonymous });
      if (anonymous.status === 303) expect(anonymous.headers.get('location')).toMatch(/^\/console\/(login|invoices)$/);
      if (!expected.foreign) continue;
      const foreign = await send(THEIRS[expected.foreign], cookie);
      expect({ route, status: foreign.status }).toEqual({ route, status: 404 });
      expect(await foreign.text()).not.toContain(theirs.uuid);
    }
    expect((await get(t.app, `/console/invoices/${theirs.id}`, cookie)).status).toBe(404);
    const unknown = await t.app.request('/console/nothing/here', { headers: { 'x-request-id': 'req-console-404' } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { message: 'Route not found' }, request_id: 'req-console-404' });
    // An unserved method on a console path: 405 with Allow, as on the API.
    const wrong = await t.app.request('/console/invoices', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('GET');
  });

  /** Each GET route that answers a page (not a document's bytes: XML, PDF, the logo), for tenant A's own things (its ids by kind). */
  const ownPages = () =>
    Object.entries(ROUTES)
      .filter(([route]) => route.startsWith('GET ') && !/\*|:delivery_id|:catalogo|\/(xml|pdf|logo)$/.test(route))
      .map(([route, expected]) => route.slice(4).replace(':id', expected.foreign ? OURS[expected.foreign] : 'x'));

  test('every page: framed by nothing (frame-ancestors none, X-Frame-Options DENY), the strict CSP, no inline script', async () => {
    const { cookie } = await signIn(t.app, a.email, a.password);
    for (const path of ownPages()) {
      const res = await get(t.app, path, cookie);
      if (!(res.headers.get('content-type') ?? '').includes('text/html')) continue; // a document's bytes (XML, PDF, logo)
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(await res.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|\son[a-z]+=|style="/);
    }
  });

  test('XSS: tenant-controlled text (names, conceptos, clients, series, users, keys) is escaped on every page', async () => {
    const payload = '<script>alert("xss")</script><img src=x onerror=alert(1)>';
    const c = await issuer(t, { ...READY, tenant: { nombre: `COMERCIO ${payload}` } });
    const make = async (path: string, body: Record<string, unknown>, token = c.key) => {
      const res = await t.call('POST', path, { token, body });
      expect({ path, status: res.status }).toEqual({ path, status: 201 });
      return res.json.id as string;
    };
    await issued(c.key, ingreso({ conceptos: [concepto({ descripcion: `Concepto ${payload}` })] }));
    await make('/clients', { rfc: 'AAA010101AAA', nombre: `CLIENTE ${payload}`, regimen_fiscal: '601', domicilio_fiscal: '01000', uso_cfdi: 'G03' });
    await make('/series', { serie: 'XSS', descripcion: `Serie ${payload}` });
    await make('/api-keys', { name: `Llave ${payload}` }, c.token);
    await make(
      '/users',
      { email: `xss-${crypto.randomUUID().slice(0, 8)}@example.com`, password: 'a-long-password-1', nombre: `Usuario ${payload}`, role: 'VIEWER' },
      c.token,
    );
    const { cookie } = await signIn(t.app, c.email, c.password);
    let pages = 0;
    for (const path of ownPages()) {
      if (path.includes('/:') || /\/(cfdi|rcv|satdl|whk|csd|key|usr|ser|cli)_/.test(path)) continue; // A's ids: C's lists are the sweep
      const res = await get(t.app, path, cookie);
      if (!(res.headers.get('content-type') ?? '').includes('text/html')) continue;
      const html = await res.text();
      pages++;
      expect({ path, raw: html.includes('<script>alert') || html.includes('<img src=x') }).toEqual({ path, raw: false });
    }
    expect(pages).toBeGreaterThan(10);
    // The text is there, escaped, where each thing is listed.
    for (const path of ['/console/invoices', '/console/clients', '/console/series', '/console/api-keys', '/console/users', '/console/profile']) {
      const html = await (await get(t.app, path, cookie)).text();
      expect({ path, escaped: html.includes('&#60;script&#62;alert(&#34;xss&#34;)&#60;/script&#62;') }).toEqual({ path, escaped: true });
    }
  });

  test('CSRF: every change of the console without the form token is refused (403) and changes nothing', async () => {
    const { cookie } = await signIn(t.app, a.email, a.password);
    const audit = async () => (await t.call('GET', '/audit-log?limit=100', { token: a.token })).json.data.length as number;
    const before = await audit();
    for (const [route, expected] of Object.entries(ROUTES)) {
      if (!route.startsWith('POST ') || route === 'POST /console/login') continue;
      const path = route
        .slice(5)
        .replace(':id', expected.foreign ? OURS[expected.foreign] : 'x')
        .replace(':delivery_id', 'x');
      for (const fields of [{}, { csrf: 'x'.repeat(43) }] as Record<string, string>[]) {
        const res = await post(t.app, path, cookie, fields);
        expect({ route, status: res.status }).toEqual({ route, status: 403 });
      }
    }
    expect((await get(t.app, '/console/invoices', cookie)).status).toBe(200); // still signed in
    expect(await audit()).toBe(before);
  });

  test('session fixation: a session cookie planted before sign-in is replaced by a new one, which is the one signed in', async () => {
    const planted = await signIn(t.app, b.email, b.password); // an attacker's own valid session
    const page = await t.app.request('/console/login');
    const seed = page.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = csrfOf(await page.text());
    const res = await t.app.request('/console/login', {
      method: 'POST',
      headers: { cookie: `${seed}; ${planted.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, email: a.email, password: a.password }),
    });
    expect(res.status).toBe(303);
    const fresh = res.headers
      .getSetCookie()
      .find((c) => c.startsWith('console_session='))!
      .split(';')[0]!;
    expect(fresh).not.toBe(planted.cookie);
    const html = await (await get(t.app, '/console/invoices', fresh)).text();
    expect(html).toContain(a.email);
    expect(html).not.toContain(b.email);
  });
});
