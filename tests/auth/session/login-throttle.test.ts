import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import { purgeLoginFailures } from '../../../src/auth/session/login-throttle.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { createTestApp, issuer, TENANT, type TestApp } from '../../helpers.ts';
import { loginAddresses, loginFailures } from '../../../src/db/schema/index.ts';

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
  test('20 concurrent wrong passwords from one new address: at most 10 are verified; the owner still logs in from an address it signed in from', async () => {
    const reg = await issuer(t);
    expect((await login(reg.email, reg.password, '203.0.113.20')).status).toBe(200);
    const calls = countVerifications();
    const answers = await Promise.all(Array.from({ length: 20 }, () => login(reg.email, 'wrong-password', '198.51.100.20')));
    expect(calls.mock.calls.length).toBeLessThanOrEqual(10);
    expect(answers.filter((a) => a.status === 401).length).toBe(calls.mock.calls.length);
    expect(answers.filter((a) => a.status === 429).length).toBe(20 - calls.mock.calls.length);
    expect((await login(reg.email, reg.password, '203.0.113.20')).status).toBe(200);
  });

  test('guesses from 120 fresh addresses spend one budget per email, with a growing wait; the owner signs in from its own addresses', async () => {
    const reg = await issuer(t);
    // The owner signed in before from one IPv6 address and one IPv4 address.
    expect((await login(reg.email, reg.password, '2001:db8:77:1::10')).status).toBe(200);
    expect((await login(reg.email, reg.password, '203.0.113.22')).status).toBe(200);
    const calls = countVerifications();
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) statuses.push((await login(reg.email, 'wrong-password', `10.${i >> 8}.${i & 255}.${(i % 250) + 1}`)).status);
    expect(calls.mock.calls.length).toBe(10);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(110).fill(429));
    calls.mockRestore();
    // The attacker's wait doubles with each guess past the budget: 1 minute, then 2.
    const fresh = await login(reg.email, 'wrong-password', '198.51.100.99');
    expect(fresh.headers.get('retry-after')).toBe('60');
    expect(fresh.json.error.details[0].issue).toBe('too many login attempts for this email from addresses it never signed in from; retry in 60 seconds');
    t.clock.advance(61_000);
    expect((await login(reg.email, 'wrong-password', '198.51.100.99')).status).toBe(401);
    expect((await login(reg.email, 'wrong-password', '198.51.100.98')).headers.get('retry-after')).toBe('120');
    // Meanwhile the owner: from any address of the /64 it signed in from, and from its IPv4 address.
    expect((await login(reg.email, reg.password, '2001:db8:77:1::abcd')).status).toBe(200);
    expect((await login(reg.email, reg.password, '203.0.113.22')).status).toBe(200);
    // An address of another /64 is a new one, and waits with the attacker's.
    expect((await login(reg.email, reg.password, '2001:db8:77:2::10')).status).toBe(429);
  });

  test("an address that signed in before has its own budget: 5 wrong passwords make it wait, without spending the email's", async () => {
    const reg = await issuer(t);
    expect((await login(reg.email, reg.password, '203.0.113.23')).status).toBe(200);
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await login(reg.email, 'wrong-password', '203.0.113.23')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const own = await login(reg.email, reg.password, '203.0.113.23');
    expect(own.status).toBe(429);
    expect(own.json.error.details[0].issue).toMatch(/^too many failed logins for this email from this address; retry in \d+ seconds$/);
    // The email's budget for other addresses is untouched: its 10 guesses are all verified.
    const others = [];
    for (let i = 0; i < 10; i++) others.push((await login(reg.email, 'wrong-password', `198.51.100.${150 + i}`)).status);
    expect(others).toEqual(Array(10).fill(401));
  });

  test('the address that registered the tenant signed in as one that logged in', async () => {
    const app = await createTestApp();
    const email = `reg-${crypto.randomUUID()}@example.com`;
    const password = 'a-long-password-1';
    const created = await app.call('POST', '/auth/register', { body: { email, password, nombre: 'Ana', tenant: TENANT }, address: '203.0.113.24' });
    expect(created.status).toBe(201);
    for (let i = 0; i < 12; i++) await app.call('POST', '/auth/login', { body: { email, password: 'wrong-password' }, address: `198.51.100.${170 + i}` });
    expect((await app.call('POST', '/auth/login', { body: { email, password }, address: '198.51.100.199' })).status).toBe(429);
    expect((await app.call('POST', '/auth/login', { body: { email, password }, address: '203.0.113.24' })).status).toBe(200);
  });

  test('an unknown email gets the same answers, waits and password checks as a known one', async () => {
    const run = async (email: string, addresses: string[]) => {
      const calls = countVerifications();
      const answers = [];
      for (let i = 0; i < 12; i++) answers.push(visible(await login(email, 'wrong-password', addresses[i % addresses.length]!)));
      const checks = calls.mock.calls.length;
      calls.mockRestore();
      return { answers, checks };
    };
    for (const addresses of [['198.51.100.21'], ['198.51.100.31', '198.51.100.32', '2001:db8:31::1']]) {
      const known = await run((await issuer(t)).email, addresses);
      const unknown = await run(`nobody-${crypto.randomUUID()}@example.com`, addresses);
      expect(unknown).toEqual(known);
      expect(known.answers.map((a) => a.status)).toEqual([...Array(10).fill(401), 429, 429]);
      expect(known.checks).toBe(10);
    }
  });

  test("the owner's right password from a new address is not counted as a guess", async () => {
    const reg = await issuer(t);
    for (let i = 0; i < 9; i++) expect((await login(reg.email, 'wrong-password', `198.51.100.${200 + i}`)).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await login(reg.email, reg.password, `192.0.2.${200 + i}`)).status).toBe(200);
    expect((await login(reg.email, 'wrong-password', '198.51.100.220')).status).toBe(401);
    expect((await login(reg.email, 'wrong-password', '198.51.100.221')).status).toBe(429);
  });
});

describe('old failures', () => {
  test('a day later an address starts again from zero; the daily purge, not the login, deletes the old rows', async () => {
    const reg = await issuer(t);
    expect((await login(reg.email, reg.password, '203.0.113.30')).status).toBe(200);
    for (let i = 0; i < 10; i++) await login(reg.email, 'wrong-password', '198.51.100.30');
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
    // An address not signed in from for 90 days is forgotten: new again.
    expect(await t.count(loginAddresses)).toBeGreaterThan(0);
    t.clock.advance(91 * 24 * 3600 * 1000);
    await purgeLoginFailures(t.db, t.clock.now);
    expect(await t.count(loginAddresses)).toBe(0);
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

  test('without tenant_id, an email of users in several tenants logs in nowhere: the first to register it does not capture the login', async () => {
    const a = await issuer(t);
    const b = await issuer(t);
    const viewer = await t.call('POST', '/users', { token: b.token, body: { email: a.email, password: 'b-tenant-password', nombre: 'Luis', role: 'VIEWER' } });
    expect(viewer.status).toBe(201);
    const wrong = visible(await login(a.email, 'not-the-password', '192.0.2.30'));
    // Either password, without tenant_id: the answer of a wrong password, after one verification as always.
    for (const password of [a.password, 'b-tenant-password']) {
      const calls = countVerifications();
      expect(visible(await login(a.email, password, '192.0.2.30'))).toEqual(wrong);
      expect(calls.mock.calls.length).toBe(1);
      calls.mockRestore();
    }
    expect(wrong.error.details).toEqual([
      { field: 'authorization', issue: 'wrong email or password (an email that is a user of several tenants logs in with tenant_id)' },
    ]);
    const inA = await login(a.email, a.password, '192.0.2.30', a.tenant.id);
    expect(inA.status).toBe(200);
    expect(inA.json.user.id).toBe(a.user.id);
    const inB = await login(a.email, 'b-tenant-password', '192.0.2.30', b.tenant.id);
    expect(inB.status).toBe(200);
    expect(inB.json.user.id).toBe(viewer.json.id);
    expect((await login(a.email, a.password, '192.0.2.30', b.tenant.id)).status).toBe(401);
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

  test("20 addresses spending their 5 sign-ups do not close sign-up: a newcomer's first goes on; the operator is told once", async () => {
    const lines: { level: string; msg: string; limit?: number }[] = [];
    const app = await createTestApp({ registrationLimits: undefined, logger: createLogger('warn', (line) => lines.push(JSON.parse(line))) });
    app.clock.now = new Date(Math.ceil(Date.now() / 3600_000) * 3600_000 + 1000);
    for (let i = 0; i < 100; i++) expect((await signUp(app, `10.0.0.${Math.floor(i / 5)}`)).status).toBe(201);
    expect((await signUp(app, '10.0.0.0')).status).toBe(429);
    // Before: the server's 100 were spent and every address was refused for the rest of the hour.
    expect((await signUp(app, '192.0.2.99')).status).toBe(201);
    expect(lines).toEqual([]);
    // Repeats from addresses that already signed up this hour share the 100: 80 spent, 20 more pass, then 429.
    for (let i = 0; i < 25; i++) expect((await signUp(app, `10.1.0.${Math.floor(i / 5)}`)).status).toBe(201);
    expect((await signUp(app, '10.1.99.0')).status).toBe(201);
    const refused = await signUp(app, '10.1.99.0');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('3599');
    expect(refused.json.error.details[0].issue).toBe("this server's limit of 100 registrations per hour reached; retry in 3599 seconds");
    expect((await signUp(app, '10.1.99.0')).status).toBe(429);
    expect(lines.map((l) => [l.level, l.msg, l.limit])).toEqual([['warn', 'registration cap reached', 100]]);
    // Newcomers still pass.
    expect((await signUp(app, '192.0.2.100')).status).toBe(201);
  });

  test("first sign-ups of an address have ten times the server's budget: past it, newcomers wait too", async () => {
    const lines: { msg: string; limit?: number }[] = [];
    const app = await createTestApp({ registrationLimits: { perAddress: 5, total: 2 }, logger: createLogger('warn', (line) => lines.push(JSON.parse(line))) });
    app.clock.now = new Date(Math.ceil(Date.now() / 3600_000) * 3600_000 + 1000);
    for (let i = 0; i < 20; i++) expect((await signUp(app, `10.2.0.${i}`)).status).toBe(201);
    const refused = await signUp(app, '10.2.0.99');
    expect(refused.status).toBe(429);
    expect(refused.json.error.details[0].issue).toBe("this server's limit of 20 registrations per hour reached; retry in 3599 seconds");
    expect(lines.map((l) => [l.msg, l.limit])).toEqual([['registration cap reached', 20]]);
  });

  test('the addresses of one IPv6 /64 share one sign-up budget', async () => {
    const app = await createTestApp({ registrationLimits: undefined });
    app.clock.now = new Date(Math.ceil(Date.now() / 3600_000) * 3600_000 + 1000);
    for (let i = 1; i <= 5; i++) expect((await signUp(app, `2001:db8:40:1::${i}`)).status).toBe(201);
    expect((await signUp(app, '2001:db8:40:1::6')).status).toBe(429);
    expect((await signUp(app, '2001:db8:40:2::1')).status).toBe(201);
  });
});
