import { describe, expect, test } from 'bun:test';
import { SignJWT, UnsecuredJWT } from 'jose';
import { createTestApp, issuer, TEST_JWT_SECRET } from '../helpers.ts';
import { sql } from 'drizzle-orm';

const t = await createTestApp();

function expectEnvelope(res: { status: number; json: any }, status: number, path: string) {
  expect(res.status).toBe(status);
  expect(res.json.error.code).toBe(`HTTP_${status}`);
  expect(typeof res.json.error.message).toBe('string');
  expect(Array.isArray(res.json.error.details)).toBe(true);
  expect(res.json.path).toBe(path);
  expect(new Date(res.json.timestamp).toISOString()).toBe(res.json.timestamp);
  expect(res.json.request_id).toBeTruthy();
}

describe('register → login → API key → call', () => {
  test('the whole journey works with a sk_test_ key', async () => {
    const reg = await issuer(t);
    expect(reg.user.role).toBe('ADMIN');
    expect(reg.tenant.id).toStartWith('ten_');

    const login = await t.call('POST', '/auth/login', { body: { email: reg.email, password: reg.password } });
    expect(login.status).toBe(200);
    expect(login.json.token_type).toBe('Bearer');
    expect(login.json.expires_in).toBe(86400);
    expect(login.json.refresh_token).toStartWith('rt_');

    const created = await t.call('POST', '/api-keys', { token: login.json.access_token, body: { name: 'ERP' } });
    expect(created.status).toBe(201);
    expect(created.json.id).toStartWith('ak_');
    expect(created.json.name).toBe('ERP');
    expect(created.json.key).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/);
    expect(new Date(created.json.created_at).toISOString()).toBe(created.json.created_at);

    const me = await t.call('GET', '/tenants/me', { token: created.json.key });
    expect(me.status).toBe(200);
    expect(me.json.id).toBe(reg.tenant.id);
    expect(me.json.rfc).toBe('EKU9003173C9');

    const who = await t.call('GET', '/auth/me', { token: created.json.key });
    expect(who.json.api_key).toEqual({ id: created.json.id, name: 'ERP', environment: 'test' });
    expect(who.json.environment).toBe('test');
  });

  test('sk_live_ keys act on the live environment', async () => {
    const reg = await issuer(t);
    const key = await reg.createKey('live');
    expect(key.key).toStartWith('sk_live_');
    const who = await t.call('GET', '/auth/me', { token: key.key });
    expect(who.json.environment).toBe('live');
  });
});

describe('the key secret is shown once and stored only as a hash', () => {
  test('list never returns the secret; the table holds only SHA-256', async () => {
    const reg = await issuer(t);
    const key = await reg.createKey();
    const list = await t.call('GET', '/api-keys', { token: reg.token });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(key.key);
    expect(list.text).not.toContain(key.key.slice(12));
    expect(list.json.data[0]).not.toHaveProperty('key');
    expect(list.json.data[0].prefix).toBe(key.key.slice(0, 12));

    const rows = await t.query(sql`select * from api_keys where id = ${key.id}`);
    expect(rows).toHaveLength(1);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(key.key);
    expect(dump).not.toContain(key.key.slice(12));
    expect(rows[0]!.key_hash).toBe(new Bun.CryptoHasher('sha256').update(key.key).digest('hex'));
  });
});

describe('401 and 403', () => {
  test('a VIEWER creating a key gets 403; an OPERATOR too', async () => {
    const reg = await issuer(t);
    for (const role of ['VIEWER', 'OPERATOR'] as const) {
      const u = await reg.userWithRole(role);
      const res = await t.call('POST', '/api-keys', { token: u.token, body: { name: 'x' } });
      expectEnvelope(res, 403, '/api/v1/api-keys');
    }
  });

  test('an API key cannot mint API keys or users', async () => {
    const reg = await issuer(t);
    const key = await reg.createKey();
    expect((await t.call('POST', '/api-keys', { token: key.key, body: { name: 'x' } })).status).toBe(403);
    expect(
      (await t.call('POST', '/users', { token: key.key, body: { email: 'z@example.com', password: 'long-enough-pw', nombre: 'Z', role: 'ADMIN' } })).status,
    ).toBe(403);
  });

  test('missing, malformed, unknown and revoked keys → 401', async () => {
    const reg = await issuer(t);
    const key = await reg.createKey();
    expectEnvelope(await t.call('GET', '/tenants/me'), 401, '/api/v1/tenants/me');
    const missing = await t.call('GET', '/tenants/me');
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    for (const authorization of ['Basic abc', 'Bearer', 'Bearer ', key.key, `Token ${key.key}`]) {
      expectEnvelope(await t.call('GET', '/tenants/me', { headers: { authorization } }), 401, '/api/v1/tenants/me');
    }
    expectEnvelope(await t.call('GET', '/tenants/me', { token: 'sk_test_' + 'A'.repeat(43) }), 401, '/api/v1/tenants/me');
    expectEnvelope(await t.call('GET', '/tenants/me', { token: key.key + 'x' }), 401, '/api/v1/tenants/me');

    expect((await t.call('GET', '/tenants/me', { token: key.key })).status).toBe(200);
    const revoked = await t.call('DELETE', `/api-keys/${key.id}`, { token: reg.token });
    expect(revoked.status).toBe(200);
    expect(revoked.json).toEqual({ id: key.id, revoked: true, deleted: true });
    const after = await t.call('GET', '/tenants/me', { token: key.key });
    expectEnvelope(after, 401, '/api/v1/tenants/me');
    expect(after.json.error.message).toBe('API key revoked');
    expect((await t.call('DELETE', `/api-keys/${key.id}`, { token: reg.token })).status).toBe(404);
    const list = await t.call('GET', '/api-keys', { token: reg.token });
    expect(list.json.data.map((k: any) => k.id)).not.toContain(key.id);
  });

  test('expired JWT, JWT signed with another secret, alg none, wrong audience → 401', async () => {
    const reg = await issuer(t);
    const claims = { tid: reg.tenant.id, ver: 0 };
    const now = Math.floor(t.clock.now.getTime() / 1000);
    const sign = (secret: string, exp: number, aud = 'cfdi-api/v1') =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(reg.user.id)
        .setIssuer('cfdi-api')
        .setAudience(aud)
        .setIssuedAt(now - 10)
        .setExpirationTime(exp)
        .sign(new TextEncoder().encode(secret));

    // Control: a well-formed token with our secret works, so the failures below are for the stated reason.
    expect((await t.call('GET', '/tenants/me', { token: await sign(TEST_JWT_SECRET, now + 60) })).status).toBe(200);

    const expired = await t.call('GET', '/tenants/me', { token: await sign(TEST_JWT_SECRET, now - 1) });
    expectEnvelope(expired, 401, '/api/v1/tenants/me');
    expect(expired.json.error.message).toStartWith('Access token expired: get a new one with POST /api/v1/auth/refresh');

    expectEnvelope(await t.call('GET', '/tenants/me', { token: await sign('another-secret-another-secret-0123456789', now + 60) }), 401, '/api/v1/tenants/me');
    expectEnvelope(await t.call('GET', '/tenants/me', { token: await sign(TEST_JWT_SECRET, now + 60, 'other') }), 401, '/api/v1/tenants/me');

    const none = new UnsecuredJWT(claims)
      .setSubject(reg.user.id)
      .setIssuer('cfdi-api')
      .setAudience('cfdi-api/v1')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .encode();
    expectEnvelope(await t.call('GET', '/tenants/me', { token: none }), 401, '/api/v1/tenants/me');

    // The real token also expires after 24 h.
    t.clock.advance(24 * 3600 * 1000 + 1000);
    const late = await t.call('GET', '/tenants/me', { token: reg.token });
    t.clock.advance(-(24 * 3600 * 1000 + 1000));
    expect(late.status).toBe(401);
  });

  test('a session a day old: its access token, cached while it worked, is a 401 that points to POST /auth/refresh, which works', async () => {
    // An app of its own: its clock moves a day, past the tokens of the other tests.
    const own = await createTestApp();
    const reg = await issuer(own);
    expect((await own.call('GET', '/tenants/me', { token: reg.token })).status).toBe(200);
    own.clock.advance(24 * 3600 * 1000 + 1000);
    const expired = await own.call('GET', '/tenants/me', { token: reg.token });
    expectEnvelope(expired, 401, '/api/v1/tenants/me');
    expect(expired.json.error.message).toBe('Access token expired: get a new one with POST /api/v1/auth/refresh (your refresh token), or log in again');
    expect(expired.json.error.details).toEqual([{ field: 'authorization', issue: expired.json.error.message }]);
    const refreshed = await own.call('POST', '/auth/refresh', { body: { refresh_token: reg.refreshToken } });
    expect(refreshed.status).toBe(200);
    expect((await own.call('GET', '/tenants/me', { token: refreshed.json.access_token })).status).toBe(200);
  });

  test("a deleted user's token stops working at once", async () => {
    const reg = await issuer(t);
    const u = await reg.userWithRole('OPERATOR');
    expect((await t.call('GET', '/tenants/me', { token: u.token })).status).toBe(200);
    expect((await t.call('DELETE', `/users/${u.id}`, { token: reg.token })).status).toBe(200);
    expect((await t.call('GET', '/tenants/me', { token: u.token })).status).toBe(401);
  });

  test('/auth/me needs a credential; other /auth routes do not', async () => {
    expect((await t.call('GET', '/auth/me')).status).toBe(401);
    const bad = await t.call('POST', '/auth/login', {
      body: { email: 'nobody@example.com', password: 'whatever-pw' },
      headers: { authorization: 'Bearer expired.garbage.token' },
    });
    expect(bad.status).toBe(401);
    expect(bad.json.error.message).toBe('Wrong email or password');
  });

  test('X-Environment selects live for a JWT; an invalid value is 400', async () => {
    const reg = await issuer(t);
    expect((await t.call('GET', '/auth/me', { token: reg.token, headers: { 'x-environment': 'live' } })).json.environment).toBe('live');
    expect((await t.call('GET', '/auth/me', { token: reg.token })).json.environment).toBe('test');
    const bad = await t.call('GET', '/auth/me', { token: reg.token, headers: { 'x-environment': 'prod' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].field).toBe('x-environment');
  });
});
