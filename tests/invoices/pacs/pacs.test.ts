import { describe, expect, test } from 'bun:test';
import { createPacRouter } from '../../../src/pac/failover.ts';
import type { Pac, StampResult } from '../../../src/pac/types.ts';
import { createTestApp, expectStatus, issuer } from '../../helpers.ts';

/** A live PAC that answers from its script (then stamps): enough to move its circuit. */
function scriptedPac(name: string, script: StampResult[]): Pac {
  return {
    name,
    stamp: async () => script.shift() ?? { ok: true, xml: '<cfdi/>', tfd: {} as never },
    cancel: () => Promise.reject(new Error('not scripted')),
    status: () => Promise.reject(new Error('not scripted')),
  };
}

const PROVIDER: StampResult = { ok: false, class: 'provider', message: 'PAC unreachable: ECONNREFUSED' };
let clock = Date.parse('2026-11-27T12:00:00.000Z');
const router = createPacRouter([scriptedPac('finkok', [PROVIDER]), scriptedPac('sw', [])], {
  ambiguousWindowMs: 600_000,
  breaker: { failureThreshold: 1, openMs: 30_000 },
  now: () => new Date(clock),
});
const t = await createTestApp({ pacRouter: router });
const owner = await issuer(t, { keys: ['test', 'live'] });

describe('GET /pacs', () => {
  test("live: the router's PACs in failover order, with circuit, consecutive failures, last error and its time, latency", async () => {
    const before = await t.api('GET', '/pacs', { token: owner.live });
    expect(before.status).toBe(200);
    expect(before.json).toEqual({
      environment: 'live',
      data: [
        { name: 'finkok', circuit: 'closed', consecutive_failures: 0, last_error: null, last_error_at: null, latency_ms: null },
        { name: 'sw', circuit: 'closed', consecutive_failures: 0, last_error: null, last_error_at: null, latency_ms: null },
      ],
    });
    expect((await router.stamp('<x/>', { tenantId: owner.tenant.id }, [])).pac).toBe('sw');
    const after = await t.api('GET', '/pacs', { token: owner.live });
    expect(after.json).toEqual({
      environment: 'live',
      data: [
        { name: 'finkok', circuit: 'open', consecutive_failures: 1, last_error: PROVIDER.message, last_error_at: '2026-11-27T12:00:00.000Z', latency_ms: 0 },
        { name: 'sw', circuit: 'closed', consecutive_failures: 0, last_error: null, last_error_at: null, latency_ms: 0 },
      ],
    });
    clock += 30_000;
    const later = expectStatus(await t.api('GET', '/pacs', { token: owner.live }), 200);
    expect(later.json.data.map((p) => p.circuit)).toEqual(['half_open', 'closed']);
    // A user session asks for live with X-Environment.
    const session = await t.call('GET', '/pacs', { token: owner.token, headers: { 'x-environment': 'live' } });
    expect(session.json.data.map((p: { name: string }) => p.name)).toEqual(['finkok', 'sw']);
  });

  test('test: the sandbox, one PAC whose circuit is always closed', async () => {
    for (const token of [owner.key, owner.token]) {
      const res = await t.api('GET', '/pacs', { token });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({
        environment: 'test',
        data: [{ name: 'sandbox', circuit: 'closed', consecutive_failures: 0, last_error: null, last_error_at: null, latency_ms: null }],
      });
    }
  });

  test('live without a configured router: an empty list', async () => {
    const bare = await createTestApp();
    const someone = await issuer(bare, { keys: ['live'] });
    expect((await bare.api('GET', '/pacs', { token: someone.live })).json).toEqual({ environment: 'live', data: [] });
  });

  test('ADMIN only: an OPERATOR or VIEWER gets 403, no credential 401', async () => {
    for (const role of ['OPERATOR', 'VIEWER'] as const) {
      const user = await owner.userWithRole(role);
      const res = await t.call('GET', '/pacs', { token: user.token, headers: { 'x-environment': 'live' } });
      expect(res.status).toBe(403);
      expect(res.json.error.code).toBeDefined();
    }
    expect((await t.call('GET', '/pacs')).status).toBe(401);
  });
});
