import { describe, expect, test } from 'bun:test';
import { createTestApp, issuer, TENANT } from '../../helpers.ts';
import { sql } from 'drizzle-orm';

const t = await createTestApp();
const body = (over: Record<string, unknown> = {}, tenant: Record<string, unknown> = {}) => ({
  email: `u-${crypto.randomUUID()}@example.com`,
  password: 'a-long-password-1',
  nombre: 'Ana López',
  tenant: { ...TENANT, ...tenant },
  ...over,
});

describe('POST /auth/register', () => {
  test('201 with tenant, ADMIN user and tokens; the email is normalised', async () => {
    const res = await t.call('POST', '/auth/register', { body: body({ email: '  Ana.Lopez@Example.COM ' }, { rfc: 'eku9003173c9' }) });
    expect(res.status).toBe(201);
    expect(res.json.tenant).toMatchObject({
      rfc: 'EKU9003173C9',
      nombre: TENANT.nombre,
      regimen_fiscal: '601',
      codigo_postal: '42501',
      plan: 'starter',
      rate_limit_per_minute: 100,
    });
    expect(res.json.user).toMatchObject({ email: 'ana.lopez@example.com', role: 'ADMIN', nombre: 'Ana López' });
    expect(res.json.user).not.toHaveProperty('password_hash');
    expect(res.json.token_type).toBe('Bearer');
    expect(res.json.expires_in).toBe(86400);
    const [row] = await t.query<{ password_hash: string }>(sql`select password_hash from users where id = ${res.json.user.id}`);
    expect(row!.password_hash).toStartWith('$argon2id$');
  });

  test('an email another tenant uses registers like a fresh one: the answer never tells that it exists', async () => {
    const first = body();
    expect((await t.call('POST', '/auth/register', { body: first })).status).toBe(201);
    const taken = await t.call('POST', '/auth/register', { body: { ...body(), email: (first.email as string).toUpperCase() } });
    const fresh = await t.call('POST', '/auth/register', { body: body() });
    expect(taken.status).toBe(201);
    expect(fresh.status).toBe(201);
    expect(Object.keys(taken.json).sort()).toEqual(Object.keys(fresh.json).sort());
    expect(taken.json.user.email).toBe((first.email as string).toLowerCase());
  });

  test.each([
    [{ rfc: 'EKU900317' }, 'tenant.rfc'],
    [{ rfc: 'EKU9013173C9' }, 'tenant.rfc'], // month 13
    [{ rfc: 'XAXX010101000', regimen_fiscal: '616' }, 'tenant.rfc'],
    [{ regimen_fiscal: '612' }, 'tenant.regimen_fiscal'], // persona física régimen for a 12-char RFC
    [{ rfc: 'FUNK671228PH6', regimen_fiscal: '601' }, 'tenant.regimen_fiscal'], // persona moral régimen for a 13-char RFC
    [{ regimen_fiscal: '999' }, 'tenant.regimen_fiscal'],
    [{ codigo_postal: '00000' }, 'tenant.codigo_postal'], // five digits but not in c_CodigoPostal
    [{ codigo_postal: '4250' }, 'tenant.codigo_postal'],
    [{ nombre: 'A|B' }, 'tenant.nombre'],
  ])('tenant %j → 422 naming %s', async (tenant, field) => {
    const res = await t.call('POST', '/auth/register', { body: body({}, tenant) });
    expect(res.status).toBe(422);
    expect(res.json.error.details.map((d: any) => d.field)).toEqual([field]);
  });

  test('a persona física with 626 (RESICO) and a persona moral with 626 are both valid', async () => {
    expect((await t.call('POST', '/auth/register', { body: body({}, { rfc: 'FUNK671228PH6', regimen_fiscal: '626' }) })).status).toBe(201);
    expect((await t.call('POST', '/auth/register', { body: body({}, { regimen_fiscal: '626' }) })).status).toBe(201);
  });

  test('unknown fields are rejected, not ignored', async () => {
    const res = await t.call('POST', '/auth/register', { body: body({ role: 'SUPERADMIN' }) });
    expect(res.status).toBe(422);
    expect(res.json.error.details[0].issue).toContain('role');
  });
});

describe('POST /auth/login', () => {
  test('401 on wrong password or unknown email, same message; 422 on invalid input', async () => {
    const reg = await issuer(t);
    const wrong = await t.call('POST', '/auth/login', { body: { email: reg.email, password: 'not-the-password' } });
    const unknown = await t.call('POST', '/auth/login', { body: { email: 'nobody@example.com', password: 'whatever-password' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.json.error.message).toBe(unknown.json.error.message);
    expect((await t.call('POST', '/auth/login', { body: { email: reg.email } })).status).toBe(422);
    expect((await t.call('POST', '/auth/login', { body: { email: 'nope', password: 'x' } })).status).toBe(422);
  });

  test('five failed logins from an address that signed in before make it wait (429 + Retry-After), even with the right password; the owner logs in from elsewhere', async () => {
    const reg = await issuer(t);
    const from = (address: string, password: string) => t.call('POST', '/auth/login', { body: { email: reg.email, password }, address });
    expect((await from('198.51.100.7', reg.password)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await from('198.51.100.7', 'wrong-password')).status).toBe(401);
    const waiting = await from('198.51.100.7', reg.password);
    expect(waiting.status).toBe(429);
    expect(waiting.headers.get('retry-after')).toBe('60');
    expect(waiting.json.error.details).toEqual([
      { field: 'rate_limit', issue: 'too many failed logins for this email from this address; retry in 60 seconds' },
    ]);
    expect((await from('203.0.113.9', reg.password)).status).toBe(200);
    // Each further failure doubles the wait for that address; a right password after it resets the count.
    t.clock.advance(60_001);
    expect((await from('198.51.100.7', 'wrong-password')).status).toBe(401);
    expect((await from('198.51.100.7', reg.password)).headers.get('retry-after')).toBe('120');
    t.clock.advance(120_001);
    expect((await from('198.51.100.7', reg.password)).status).toBe(200);
    expect((await from('198.51.100.7', 'wrong-password')).status).toBe(401);
    expect((await from('198.51.100.7', reg.password)).status).toBe(200);
  });

  test('a success resets the failure count', async () => {
    const reg = await issuer(t);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++) await t.call('POST', '/auth/login', { body: { email: reg.email, password: 'wrong-password' } });
      expect((await t.call('POST', '/auth/login', { body: { email: reg.email, password: reg.password } })).status).toBe(200);
    }
  });
});

describe('refresh and logout', () => {
  test('refresh rotates: the new pair works, the old refresh token does not', async () => {
    const reg = await issuer(t);
    const r1 = await t.call('POST', '/auth/refresh', { body: { refresh_token: reg.refreshToken } });
    expect(r1.status).toBe(200);
    expect(r1.json.refresh_token).not.toBe(reg.refreshToken);
    expect((await t.call('GET', '/tenants/me', { token: r1.json.access_token })).status).toBe(200);
    const r2 = await t.call('POST', '/auth/refresh', { body: { refresh_token: r1.json.refresh_token } });
    expect(r2.status).toBe(200);
  });

  test('reusing a rotated token revokes the whole family', async () => {
    const reg = await issuer(t);
    const r1 = await t.call('POST', '/auth/refresh', { body: { refresh_token: reg.refreshToken } });
    const reuse = await t.call('POST', '/auth/refresh', { body: { refresh_token: reg.refreshToken } });
    expect(reuse.status).toBe(401);
    // The legitimate holder's newer token is now dead too.
    expect((await t.call('POST', '/auth/refresh', { body: { refresh_token: r1.json.refresh_token } })).status).toBe(401);
    // Another login (another family) is unaffected.
    const login = await t.call('POST', '/auth/login', { body: { email: reg.email, password: reg.password } });
    expect((await t.call('POST', '/auth/refresh', { body: { refresh_token: login.json.refresh_token } })).status).toBe(200);
  });

  test('logout revokes the refresh token; unknown tokens are 204 too', async () => {
    const reg = await issuer(t);
    expect((await t.call('POST', '/auth/logout', { body: { refresh_token: reg.refreshToken } })).status).toBe(204);
    expect((await t.call('POST', '/auth/refresh', { body: { refresh_token: reg.refreshToken } })).status).toBe(401);
    expect((await t.call('POST', '/auth/logout', { body: { refresh_token: 'rt_unknown' } })).status).toBe(204);
  });

  test('refresh tokens expire after 30 days', async () => {
    const reg = await issuer(t);
    t.clock.advance(30 * 24 * 3600 * 1000 + 1000);
    const res = await t.call('POST', '/auth/refresh', { body: { refresh_token: reg.refreshToken } });
    t.clock.advance(-(30 * 24 * 3600 * 1000 + 1000));
    expect(res.status).toBe(401);
  });
});

describe('routing', () => {
  test('a known path with an unserved method → 405 with Allow; OPTIONS lists the methods', async () => {
    const reg = await issuer(t);
    const res = await t.call('PUT', '/tenants/me', { token: reg.token, body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, PATCH, HEAD, OPTIONS');
    expect(res.json.error.code).toBe('HTTP_405');
    const login = await t.call('GET', '/auth/login');
    expect(login.status).toBe(405);
    expect(login.headers.get('allow')).toContain('POST');
    const search = await t.call('SEARCH', '/auth/login');
    expect(search.status).toBe(405);
    const options = await t.call('OPTIONS', '/users', { token: reg.token });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('POST, GET, HEAD, OPTIONS');
    const key = await t.call('GET', '/api-keys/ak_x', { token: reg.token });
    expect(key.status).toBe(405);
    expect(key.headers.get('allow')).toBe('DELETE, OPTIONS');
  });

  test('HEAD is served for GET routes without a body', async () => {
    const reg = await issuer(t);
    const res = await t.app.request('/api/v1/tenants/me', { method: 'HEAD', headers: { authorization: `Bearer ${reg.token}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  test('unknown paths → 404 envelope', async () => {
    const reg = await issuer(t);
    for (const path of ['/api/v1/nope', '/api/v1/users/usr_x/nope', '/api/v1/auth/nope', '/nope', '/api/v2/health']) {
      const res = await t.call('GET', path, { token: reg.token });
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe('HTTP_404');
    }
  });

  test('the request id is echoed, or generated when absent or unsafe', async () => {
    const given = await t.call('GET', '/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const generated = await t.call('GET', '/health', { headers: { 'x-request-id': 'bad id with spaces\n' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^req_/);
    const err = await t.call('GET', '/tenants/me', { headers: { 'x-request-id': 'trace-42' } });
    expect(err.json.request_id).toBe('trace-42');
  });
});
