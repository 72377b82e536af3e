import { describe, expect, test } from 'bun:test';
import { openDatabase } from '../../src/db/client.ts';
import { createBackend } from '../../src/lib/backend.ts';
import { errorWithCauses } from '../../src/lib/errors.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { type ErrorKind, ServiceError } from '../../src/lib/service-error.ts';
import { createTestApp, issuer, TEST_MASTER_KEY } from '../helpers.ts';

/** Every kind a service may throw, and the status each backend answers it with. */
const STATUSES: Record<ErrorKind, { auth: number; invoices: number }> = {
  invalid_input: { auth: 422, invoices: 400 },
  invalid_header: { auth: 400, invoices: 400 },
  unauthenticated: { auth: 401, invoices: 401 },
  forbidden: { auth: 403, invoices: 403 },
  not_found: { auth: 404, invoices: 404 },
  conflict: { auth: 409, invoices: 409 },
  too_large: { auth: 413, invoices: 413 },
  rejected: { auth: 422, invoices: 422 },
  too_many: { auth: 429, invoices: 429 },
  unavailable: { auth: 503, invoices: 503 },
};

describe('service errors → statuses, once per backend', () => {
  const deps = { db: openDatabase(':memory:'), now: () => new Date(), logger: createLogger('silent'), masterKey: TEST_MASTER_KEY, instanceId: 'inst_test' };

  for (const backend of ['auth', 'invoices'] as const) {
    const app = createBackend(deps, backend);
    app.get('/api/v1/throw/:kind', (c) => {
      const kind = c.req.param('kind') as ErrorKind;
      throw new ServiceError(kind, `a ${kind} error`, [{ field: 'f', issue: 'i' }], kind === 'too_many' || kind === 'unavailable' ? 7 : undefined);
    });

    app.get('/api/v1/conflict/:code', (c) => {
      throw new Error('Failed query: update "series" set …', { cause: Object.assign(new Error('could not serialize access'), { code: c.req.param('code') }) });
    });

    test(`the ${backend} backend answers PostgreSQL's write conflicts past their re-runs 503, Retry-After 1: nothing was written`, async () => {
      for (const code of ['40001', '40P01']) {
        const res = await app.request(`/api/v1/conflict/${code}`);
        expect([code, res.status, res.headers.get('retry-after')]).toEqual([code, 503, '1']);
        expect(((await res.json()) as { error: { details: { field: string }[] } }).error.details[0]!.field).toBe('database');
      }
      expect((await app.request('/api/v1/conflict/23505')).status).toBe(500);
    });

    test(`the ${backend} backend answers each kind with its status, the envelope and the headers it needs`, async () => {
      for (const [kind, statuses] of Object.entries(STATUSES)) {
        const res = await app.request(`/api/v1/throw/${kind}`);
        const status = statuses[backend];
        expect([kind, res.status]).toEqual([kind, status]);
        const body = (await res.json()) as { error: { code: string; message: string; details: unknown[] } };
        expect(body.error).toEqual({ code: `HTTP_${status}`, message: `a ${kind} error`, details: [{ field: 'f', issue: 'i' }] });
        expect(res.headers.get('www-authenticate')).toBe(kind === 'unauthenticated' ? 'Bearer' : null);
        expect(res.headers.get('retry-after')).toBe(kind === 'too_many' || kind === 'unavailable' ? '7' : null);
      }
    });
  }
});

const t = await createTestApp();

describe('invalid input through the whole app', () => {
  test('422 on an auth route, 400 on an invoice route: from the request schema and from a service alike', async () => {
    const { token } = await issuer(t);
    // The request schema refuses it (the backend's zod hook).
    expect((await t.call('POST', '/users', { token, body: { email: 'not-an-email' } })).status).toBe(422);
    expect((await t.call('POST', '/clients', { token, body: { rfc: 'nope' } })).status).toBe(400);
    // A service refuses it: the same cursor check on both backends.
    const users = await t.call('GET', '/users?cursor=garbage', { token });
    const clients = await t.call('GET', '/clients?cursor=garbage', { token });
    expect([users.status, users.json.error.code]).toEqual([422, 'HTTP_422']);
    expect([clients.status, clients.json.error.code]).toEqual([400, 'HTTP_400']);
    expect(users.json.error.details).toEqual([{ field: 'cursor', issue: 'is not a cursor returned by this API' }]);
    expect(clients.json.error.details).toEqual(users.json.error.details);
  });

  test("a malformed header is 400 on both: the gateway's X-Environment, the backends' Idempotency-Key", async () => {
    const { token } = await issuer(t);
    const environment = await t.call('GET', '/users', { token, headers: { 'x-environment': 'prod' } });
    expect([environment.status, environment.json.error.message]).toEqual([400, 'Invalid X-Environment header']);
    const key = { 'idempotency-key': 'x'.repeat(256) };
    const user = await t.call('POST', '/users', {
      token,
      headers: key,
      body: { email: 'b@example.com', password: 'a-long-password-1', nombre: 'B', role: 'VIEWER' },
    });
    const series = await t.call('POST', '/series', { token, headers: key, body: { serie: 'K' } });
    for (const res of [user, series]) expect([res.status, res.json.error.message]).toEqual([400, 'Invalid Idempotency-Key']);
  });
});

describe('errorWithCauses', () => {
  test("the log of an unexpected error carries its causes' codes and messages, not only Drizzle's Failed query", () => {
    const driver = Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' });
    const text = errorWithCauses(new Error('Failed query: update "jobs" set …', { cause: driver }));
    expect(text).toStartWith('Error: Failed query: update "jobs" set …\n    at ');
    expect(text).toEndWith('\ncaused by: [40001] could not serialize access due to concurrent update');
    expect(errorWithCauses('a string')).toBe('a string');
  });
});
