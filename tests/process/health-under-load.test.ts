import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invoiceBody, liftRateLimits, setUpTenant, SOAK_TENANTS } from '../../bench/soak.ts';
import { startServer, stopServer } from './server.ts';
import { TEST_ENGINE } from '../helpers.ts';

/**
 * Acceptance (issue 19, item 12): /health stays 200 while 8 clients issue invoices continuously. Every invoice sends
 * webhooks to a receiver that takes a second to answer, and every fourth one is queued (pac_unavailable), so the
 * job worker always has work in flight and its drain does not end while the load lasts — the condition under which
 * the scheduler's heartbeat stood still and /health said 503 after 15 s.
 * HEALTH_LOAD_SECONDS sets how long (default 20 s: the failure needs over 15 s).
 */
const SECONDS = Number(process.env.HEALTH_LOAD_SECONDS ?? 20);
const CLIENTS = 8;
// Every 500 ms, as an orchestrator's probe might (probes have their own 600 a minute per address).
const POLL_MS = 500;

// The receiver listens on loopback, which webhooks may target only with the operator's consent.
const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true' };
const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-health-load-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const listening = (startLog: string) => JSON.parse(startLog.split('\n').find((l) => l.includes('"msg":"listening"'))!);

// SQLite only: SQLite's synchronous setting and its writer under load.
describe.skipIf(TEST_ENGINE !== 'sqlite')('health under load', () => {
  test(
    `/health stays 200 while ${CLIENTS} clients issue invoices continuously for ${SECONDS} s; fiscal writes are synchronous=FULL by default`,
    async () => {
      // An integrator's receiver that is slow but answers: deliveries back up behind its lane's 8 slots.
      const receiver = Bun.serve({ port: 0, fetch: async () => (await Bun.sleep(1000), new Response('ok')) });
      try {
        const setup = await startServer(dataDir, ENV);
        // Item 14: the connection really syncs every commit (read back from SQLite at start).
        expect(listening(setup.startLog).sqlite_synchronous).toBe('full');
        const tenant = await setUpTenant(setup.base, receiver.url.origin, SOAK_TENANTS[0]!);
        await stopServer(setup.proc);
        await liftRateLimits(dataDir, [tenant]);

        const { proc, base } = await startServer(dataDir, ENV);
        const statuses = new Map<number, number>();
        const health: { at: number; status: number; body: string }[] = [];
        let stopping = false;
        const client = async (c: number) => {
          for (let n = 0; !stopping; n++) {
            const queued = n % 4 === 3;
            const res = await fetch(`${base}/cfdis`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${tenant.key}`,
                'content-type': 'application/json',
                ...(queued ? { 'x-sandbox-scenario': 'pac_unavailable' } : {}),
              },
              body: JSON.stringify(invoiceBody(c * 100_000 + n)),
            });
            await res.arrayBuffer();
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          }
        };
        const poller = async () => {
          const started = Date.now();
          while (!stopping) {
            const at = Date.now() - started;
            const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5000) }).catch((err: Error) => ({
              status: 0,
              text: async () => err.message,
            }));
            health.push({ at, status: res.status, body: await res.text() });
            await Bun.sleep(POLL_MS);
          }
        };
        const running = [...Array.from({ length: CLIENTS }, (_, c) => client(c)), poller()];
        await Bun.sleep(SECONDS * 1000);
        stopping = true;
        await Promise.all(running);
        await stopServer(proc);

        const failed = health.filter((h) => h.status !== 200);
        console.log(JSON.stringify({ seconds: SECONDS, health_polls: health.length, health_failed: failed.length, issued: Object.fromEntries(statuses) }));
        expect(failed.slice(0, 3)).toEqual([]);
        expect(health.length).toBeGreaterThanOrEqual((SECONDS * 1000) / POLL_MS / 2);
        expect([...statuses.keys()].sort()).toEqual([201, 202]);
        expect(statuses.get(201)! + statuses.get(202)!).toBeGreaterThan(SECONDS * 4);

        // The setting reaches the pragma.
        const normal = await startServer(dataDir, { SQLITE_SYNCHRONOUS: 'normal' });
        expect(listening(normal.startLog).sqlite_synchronous).toBe('normal');
        await stopServer(normal.proc);
      } finally {
        receiver.stop(true);
      }
    },
    (SECONDS + 180) * 1000,
  );
});
