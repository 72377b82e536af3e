import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import { purgeLoginFailures } from '../../../src/auth/session/login-throttle.ts';
import { createTestApp, issuer, TENANT, type TestApp } from '../../helpers.ts';
import { loginFailures } from '../../../src/db/schema/index.ts';

const t = await createTestApp();
/** Every password check, real or the dummy one an unknown email gets, goes through Bun.password.verify. */
let verify: ReturnType<typeof spyOn<typeof Bun.password, 'verify'>> | undefined;
const countVerifications = () => (verify = spyOn(Bun.password, 'verify'));
afterEach(() => verify?.mockRestore());

const login = (email: string, password: string, address: string, tenant_id?: string) =>
  t.call('POST', '/auth/login', { body: { email, password, ...(tenant_id && { tenant_id }) }, address });
/** What a caller can compare between two answers: status, Retry-After and the body without its per-request fields. */
const visible = (res: Awaited<ReturnType<typeof login>>) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), error: res.json?.error });

describe('login throttling', () => {
  test('20 concurrent wrong passwords from one address: at most 5 are verified; the owner still logs in from another address', async () => {
    const reg = await issuer(t);
    const calls = countVerifications();
    const answers = await Promise.all(Array.from({ length: 20 }, () => login(reg.email, 'wrong-password', '198.51.100.20')));
    expect(calls.mock.calls.length).toBeLessThanOrEqual(5);
    expect(answers.filter((a) => a.status === 401).length).toBe(calls.mock.calls.length);
    expect(answers.filter((a) => a.status === 429).length).toBe(20 - calls.mock.calls.length);
    expect((await login(reg.email, reg.password, '203.0.113.20')).status).toBe(200);
  });

  test('an unknown email gets the same answers, waits and password checks as a known one', async () => {
    const reg = await issuer(t);
    const run = async (email: string, address: string) => {
      const calls = countVerifications();
      const answers = [];
      for (let i = 0; i < 7; i++) answers.push(visible(await login(email, 'wrong-password', address)));
      const checks = calls.mock.calls.length;
      calls.mockRestore();
      return { answers, checks };
    };
    const known = await run(reg.email, '198.51.100.21');
    const unknown = await run(`nobody-${crypto.randomUUID()}@example.com`, '198.51.100.21');
    expect(unknown).toEqual(known);
    expect(known.answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expect(known.checks).toBe(5);
  });

  test('addresses that already failed for an email share 20 attempts a minute; a fresh address is never held back', async () => {
    const reg = await issuer(t);
    t.clock.now = new Date(Math.ceil(t.clock.now.getTime() / 60_000) * 60_000 + 1000);
    const statuses: number[] = [];
    for (let a = 0; a < 6; a++) for (let i = 0; i < 5; i++) statuses.push((await login(reg.email, 'wrong-password', `198.51.100.${100 + a}`)).status);
    // Each address's first attempt is free of the shared ceiling; its next four count: 20 pass, then 429.
    expect(statuses.filter((s) => s === 401).length).toBe(6 + 20);
    expect(statuses.filter((s) => s === 429).length).toBe(4);
    expect((await login(reg.email, reg.password, '203.0.113.21')).status).toBe(200);
  });
});

describe('old failures', () => {
  test('a day later an address starts again from zero; the daily purge, not the login, deletes the old rows', async () => {
    const reg = await issuer(t);
    for (let i = 0; i < 5; i++) await login(reg.email, 'wrong-password', '198.51.100.30');
    expect((await login(reg.email, 'wrong-password', '198.51.100.30')).status).toBe(429);
    const rows = () => t.count(loginFailures);
    t.clock.advance(25 * 3600 * 1000);
    expect((await login(reg.email, 'wrong-password', '198.51.100.30')).status).toBe(401);
    const before = await rows();
    t.clock.advance(25 * 3600 * 1000);
    await login(reg.email, reg.password, '203.0.113.30'); // a login sweeps nothing
    expect(await rows()).toBe(before);
    await purgeLoginFailures(t.db, t.clock.now);
    expect(await rows()).toBe(0);
  });
});

describe('emails are unique per tenant: nothing tells whether another tenant uses one', () => {
  test('POST /users: an email of another tenant is created like a fresh one; one of the same tenant is 409', async () => {
    const a = await issuer(t);
    const b = await issuer(t);
    const create = (email: string) =>
      t.call('POST', '/users', { token: b.token, body: { email, password: 'another-long-password', nombre: 'Luis', role: 'VIEWER' } });
    const taken = await create(a.email);
    const fresh = await create(`fresh-${crypto.randomUUID()}@example.com`);
    expect(taken.status).toBe(201);
    expect(fresh.status).toBe(201);
    expect(Object.keys(taken.json).sort()).toEqual(Object.keys(fresh.json).sort());
    const again = await create(a.email);
    expect(again.status).toBe(409);
    expect(again.json.error.details[0].field).toBe('email');
    // PATCH to an email of another tenant is allowed too.
    expect((await t.call('PATCH', `/users/${fresh.json.id}`, { token: b.token, body: { email: a.email.replace('@', '+x@') } })).status).toBe(200);
  });

  test('login takes the oldest user with the email unless tenant_id names another', async () => {
    const a = await issuer(t);
    const b = await issuer(t);
    const viewer = await t.call('POST', '/users', { token: b.token, body: { email: a.email, password: 'b-tenant-password', nombre: 'Luis', role: 'VIEWER' } });
    expect(viewer.status).toBe(201);
    const plain = await login(a.email, a.password, '192.0.2.30');
    expect(plain.status).toBe(200);
    expect(plain.json.user.id).toBe(a.user.id);
    expect((await login(a.email, 'b-tenant-password', '192.0.2.30')).status).toBe(401);
    const inB = await login(a.email, 'b-tenant-password', '192.0.2.30', b.tenant.id);
    expect(inB.status).toBe(200);
    expect(inB.json.user.id).toBe(viewer.json.id);
    expect((await login(a.email, a.password, '192.0.2.30', 'ten_unknown')).status).toBe(401);
  });
});

describe('registration budget', () => {
  const signUp = (app: TestApp, address: string, over: Record<string, unknown> = {}) =>
    app.call('POST', '/auth/register', {
      body: { email: `r-${crypto.randomUUID()}@example.com`, password: 'a-long-password-1', nombre: 'Ana', tenant: TENANT, ...over },
      address,
    });

  test('5 sign-ups per hour from one address (invalid ones do not count), then 429 with Retry-After; other addresses go on', async () => {
    const app = await createTestApp({ registrationLimits: undefined });
    app.clock.now = new Date(Math.ceil(Date.now() / 3600_000) * 3600_000 + 1000);
    expect((await signUp(app, '198.51.100.40', { tenant: { ...TENANT, rfc: 'nope' } })).status).toBe(422);
    for (let i = 0; i < 5; i++) expect((await signUp(app, '198.51.100.40')).status).toBe(201);
    const refused = await signUp(app, '198.51.100.40');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('3599');
    expect(refused.json.error).toEqual({
      code: 'HTTP_429',
      message: 'Too many registrations',
      details: [{ field: 'rate_limit', issue: 'limit of 5 registrations per hour from this address reached; retry in 3599 seconds' }],
    });
    expect((await signUp(app, '198.51.100.41')).status).toBe(201);
    app.clock.advance(3600_000);
    expect((await signUp(app, '198.51.100.40')).status).toBe(201);
  });

  test('100 sign-ups per hour on the whole server, whatever the addresses', async () => {
    const app = await createTestApp({ registrationLimits: undefined });
    app.clock.now = new Date(Math.ceil(Date.now() / 3600_000) * 3600_000 + 1000);
    for (let i = 0; i < 100; i++) expect((await signUp(app, `10.0.${Math.floor(i / 5)}.${i % 5}`)).status).toBe(201);
    const refused = await signUp(app, '192.0.2.99');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('3599');
    expect(refused.json.error.details[0].issue).toBe("this server's limit of 100 registrations per hour reached; retry in 3599 seconds");
  });
});
