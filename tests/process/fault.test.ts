import { afterAll, describe, expect, test } from 'bun:test';
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkDatabase, invoiceBody, liftRateLimits, seeded, setUpTenant, SOAK_TENANTS, startReceiver, type SoakTenant } from '../../bench/soak.ts';
import { drawFrom, sendUntilAnswered } from './clients.ts';
import { startServer, stopServer } from './server.ts';
import { TEST_ENGINE, until } from '../helpers.ts';

/**
 * Acceptance (issue 11): SIGKILL the server every 2–5 s (random) under mixed load from several client loops, and
 * start it again on the same DATA_DIR (a new port each time; the clients follow). Clients retry a POST /cfdis whose
 * answer was lost with the same Idempotency-Key, as the README tells integrators to. Afterwards: every 201/202 a
 * client saw exists; every invoice ends vigente (or cancelado, when a client asked) with its own UUID; one
 * cfdi.timbrado per stamp; every event the database recorded was delivered and reached the receiver at least once;
 * an Idempotency-Key never issued two invoices; no job left queued or running; `PRAGMA integrity_check` is ok.
 *
 * FAULT_SECONDS sets how long the kills go on (default 30 s with CI set, 20 s otherwise; the run with two workers
 * half that). 30 s, not 90, on CI: the PAC chaos test (tests/process/pac-failover.test.ts) takes the time saved, so
 * the suite stays inside CI's 25 minutes; a kill every 2–5 s still gives about ten.
 */
const SECONDS = Number(process.env.FAULT_SECONDS ?? (process.env.CI ? 30 : 20));
const CLIENTS = 6;
// A 5 s job lease instead of 30 s: what a killed run held is taken over sooner, so more take-overs happen during the
// kills, and the drain after the last one waits 5 s for them, not 30.
const ENV = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0,1,1,2,2,5,5,10,10,10',
  CANCELLATION_POLL_SECONDS: '1',
  JOB_LEASE_SECONDS: '5',
};

const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-fault-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

type Op = 'stamp' | 'stamp_queued' | 'list' | 'get' | 'xml' | 'pdf' | 'cancel' | 'deliveries';
const MIX: [Op, number][] = [
  ['stamp', 30],
  ['stamp_queued', 8],
  ['list', 12],
  ['get', 20],
  ['xml', 12],
  ['pdf', 5],
  ['cancel', 5],
  ['deliveries', 8],
];

// SQLite only: the processes of one service on its SQLite file (on PostgreSQL, tests/process/multi-instance.test.ts).
// On the default configuration (one process on CI's 2 cores), and as a supervisor with two workers on one file.
describe.skipIf(TEST_ENGINE !== 'sqlite')('kill -9 under mixed load', () => {
  // Two workers for half as long: the kills land on the supervisor, whose workers must exit with it (the run on the
  // default configuration is the long one; both together stay inside CI's time).
  for (const [label, env, seconds] of [
    ['default configuration', ENV, SECONDS],
    ['WORKERS=2', { ...ENV, WORKERS: '2' }, Math.ceil(SECONDS / 2)],
  ] as const) {
    const dir = join(dataDir, label.replace(/\W+/g, '-'));
    mkdirSync(dir);
    test(
      `${label}: SIGKILL every 2–5 s for ${seconds} s; nothing acknowledged is lost, nothing is stamped twice, every event is delivered`,
      async () => {
        const receiver = await startReceiver();
        try {
          const setup = await startServer(dir, env);
          const tenants: SoakTenant[] = [];
          for (const spec of SOAK_TENANTS) tenants.push(await setUpTenant(setup.base, receiver.url, spec));
          await stopServer(setup.proc);
          await liftRateLimits(dir, tenants);

          let server = await startServer(dir, env);
          const seed = Number(process.env.FAULT_SEED ?? Date.now() % 1e9); // printed below; FAULT_SEED replays the draws
          const random = seeded(seed);
          const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
          const drawOp = () => drawFrom(MIX, random);

          // What the clients were told.
          const acks = new Map<string, { tenant: string; code: 201 | 202; uuid?: string }>();
          const byKey = new Map<string, string>(); // Idempotency-Key → the cfdi_ id first acknowledged for it
          const stamped = new Map<string, { id: string; uuid: string }[]>(tenants.map((t) => [t.name, []]));
          const ids = new Map<string, string[]>(tenants.map((t) => [t.name, []]));
          const cancelled = new Set<string>(); // cancel answered 200
          const cancelAsked = new Set<string>(); // cancel sent (answered or not)
          const problems: string[] = [];
          const counts = { requests: 0, network_errors: 0, retries: 0, kills: 0, replayed: 0 };
          const problem = (s: string) => {
            if (problems.length < 50) problems.push(s.slice(0, 500));
          };

          let stopping = false;
          async function client(c: number) {
            let n = 0;
            while (!stopping) {
              const t = pick(tenants);
              const auth = { authorization: `Bearer ${t.key}` };
              let op = drawOp();
              if ((op === 'get' && ids.get(t.name)!.length === 0) || ((op === 'xml' || op === 'pdf' || op === 'cancel') && stamped.get(t.name)!.length === 0))
                op = 'list';
              if (op === 'stamp' || op === 'stamp_queued') {
                // Retried with the same key and body until an answer arrives (the server may be down for a while).
                const key = `fault-${c}-${n++}`;
                const body = JSON.stringify(invoiceBody(n, key));
                const headers = {
                  ...auth,
                  'content-type': 'application/json',
                  'idempotency-key': key,
                  ...(op === 'stamp_queued' ? { 'x-sandbox-scenario': 'pac_unavailable' } : {}),
                };
                const answer = await sendUntilAnswered((signal) => fetch(`${server.base}/cfdis`, { method: 'POST', headers, body, signal }), counts);
                if (!answer) problem(`${key}: no answer after 200 attempts`);
                else if (answer.status !== 201 && answer.status !== 202) problem(`POST /cfdis ${key}: ${answer.status} ${answer.text.slice(0, 300)}`);
                else {
                  const json = answer.json;
                  if (answer.replayed) counts.replayed++;
                  const first = byKey.get(key);
                  if (first && first !== json.id) problem(`Idempotency-Key ${key} answered ${first} and then ${json.id}`);
                  byKey.set(key, json.id);
                  acks.set(json.id, { tenant: t.name, code: answer.status as 201 | 202, uuid: json.uuid ?? undefined });
                  ids.get(t.name)!.push(json.id);
                  if (answer.status === 201) stamped.get(t.name)!.push({ id: json.id, uuid: json.uuid });
                }
                continue;
              }
              let url: string;
              let init: RequestInit = { headers: auth };
              let target: string | undefined;
              switch (op) {
                case 'list':
                  url = `${server.base}/cfdis?limit=20`;
                  break;
                case 'get':
                  url = `${server.base}/cfdis/${pick(ids.get(t.name)!)}`;
                  break;
                case 'xml':
                case 'pdf':
                  url = `${server.base}/cfdis/${pick(stamped.get(t.name)!).uuid}/${op}`;
                  break;
                case 'deliveries':
                  url = `${server.base}/webhooks/${t.webhookId}/deliveries?limit=20`;
                  break;
                case 'cancel': {
                  const candidates = stamped.get(t.name)!.filter((s) => !cancelAsked.has(s.id));
                  if (candidates.length === 0) continue;
                  target = pick(candidates).id;
                  cancelAsked.add(target);
                  url = `${server.base}/cfdis/${target}/cancel`;
                  init = { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ motivo: '02' }) };
                  break;
                }
              }
              counts.requests++;
              try {
                const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
                const text = await res.text();
                if (res.status !== 200) problem(`${op} ${url.replace(server.base, '')}: ${res.status} ${text.slice(0, 300)}`);
                else if (op === 'cancel') cancelled.add(target!);
              } catch {
                counts.network_errors++; // the server was killed or is starting: the answer is unknown
                await Bun.sleep(50);
              }
            }
          }

          const t0 = performance.now();
          const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
          const bootMs: number[] = [];
          while (performance.now() - t0 < seconds * 1000) {
            await Bun.sleep(2000 + random() * 3000);
            server.proc.kill('SIGKILL');
            await server.proc.exited;
            counts.kills++;
            const b0 = performance.now();
            server = await startServer(dir, env);
            bootMs.push(performance.now() - b0);
          }
          stopping = true;
          await Promise.all(clients);

          // The last run drains: queue empty, and the receiver has every delivery the database holds.
          const watch = new Database(join(dir, 'cfdi.sqlite'), { readonly: true });
          const deliveries = () => (watch.prepare('select count(*) n from webhook_deliveries').get() as { n: number }).n;
          const drain0 = performance.now();
          let queue: any = {};
          for (;;) {
            queue = ((await (await fetch(`${server.base}/health`)).json()) as any).details.queue;
            if (queue.depth === 0 && queue.running === 0 && (await receiver.stats()).unique >= deliveries()) break;
            if (performance.now() - drain0 > 60_000) {
              problem(
                `the queue did not drain within 60 s: ${JSON.stringify(queue)}, received ${(await receiver.stats()).unique} of ${deliveries()} deliveries`,
              );
              break;
            }
            await Bun.sleep(200);
          }
          watch.close();
          const drainMs = performance.now() - drain0;
          await stopServer(server.proc);

          const received = await receiver.stats();
          const checks = checkDatabase(join(dir, 'cfdi.sqlite'), acks, cancelled, await receiver.ids(), cancelAsked);
          const db = new Database(join(dir, 'cfdi.sqlite'), { readonly: true });
          const statuses = Object.fromEntries(
            (db.prepare('select status, count(*) n from cfdis group by status').all() as { status: string; n: number }[]).map((r) => [r.status, r.n]),
          );
          // Every invoice carries its Idempotency-Key in the first concepto's NoIdentificacion: one key, one invoice.
          const perKey = new Map<string, number>();
          for (const xml of db.prepare('select cast(xml as text) from cfdi_documents').pluck().all() as string[]) {
            const key = /NoIdentificacion="(fault-\d+-\d+)"/.exec(xml)?.[1] ?? 'none';
            perKey.set(key, (perKey.get(key) ?? 0) + 1);
          }
          const cancelledNotAsked = (db.prepare("select id from cfdis where status = 'cancelado'").pluck().all() as string[]).filter(
            (id) => !cancelAsked.has(id),
          );
          db.close();
          const twice = [...perKey].filter(([, n]) => n > 1);

          const summary = {
            seconds,
            seed,
            kills: counts.kills,
            boot_ms_max: Math.round(Math.max(...bootMs)),
            requests: counts.requests,
            network_errors: counts.network_errors,
            stamp_retries: counts.retries,
            replayed: counts.replayed,
            acknowledged: { '201': [...acks.values()].filter((a) => a.code === 201).length, '202': [...acks.values()].filter((a) => a.code === 202).length },
            cancelled: cancelled.size,
            cancel_unanswered: cancelAsked.size - cancelled.size,
            statuses,
            drain_ms: Math.round(drainMs),
            webhooks: received,
            keys_with_two_invoices: twice.length,
            checks: { ...checks, missing: checks.missing.length, wrong_status: checks.wrong_status.length },
          };
          console.log(`fault test: ${JSON.stringify(summary)}`);

          // Each kill costs at most 5 s up plus its boot (7.5 s seen on two cores shared with another suite).
          expect(counts.kills).toBeGreaterThanOrEqual(Math.floor((seconds * 1000) / (5000 + Math.max(...bootMs))));
          expect(acks.size).toBeGreaterThan(0);
          expect({
            problems,
            integrity: checks.integrity,
            missing: checks.missing.slice(0, 10),
            wrong_status: checks.wrong_status.slice(0, 10),
            not_final: Object.keys(statuses).filter((s) => s !== 'vigente' && s !== 'cancelado'),
            cancelled_not_asked: cancelledNotAsked.slice(0, 10),
            duplicate_uuids: checks.duplicate_uuids,
            timbrado_not_once: checks.timbrado_not_once,
            events_without_delivery: checks.events_without_delivery,
            deliveries_not_delivered: checks.deliveries_not_delivered,
            deliveries_not_received: checks.deliveries_not_received,
            bad_signatures: received.bad_signatures,
            jobs_not_done: checks.jobs_not_done,
            jobs_failed: checks.jobs_failed,
            idempotency_keys_with_two_invoices: twice.slice(0, 10),
          }).toEqual({
            problems: [],
            integrity: 'ok',
            missing: [],
            wrong_status: [],
            not_final: [],
            cancelled_not_asked: [],
            duplicate_uuids: 0,
            timbrado_not_once: 0,
            events_without_delivery: 0,
            deliveries_not_delivered: 0,
            deliveries_not_received: 0,
            bad_signatures: 0,
            jobs_not_done: 0,
            jobs_failed: 0,
            idempotency_keys_with_two_invoices: [],
          });
        } finally {
          await receiver.stop();
        }
      },
      (seconds + 150) * 1000,
    );
  }

  // The failure the test above finds by chance, made deterministic: the sandbox's `pac_slow` holds the request for
  // the 5 s synchronous budget after the invoice was committed (en_cola), and the SIGKILL lands in that window.
  test('a POST /cfdis cut by SIGKILL and retried with its Idempotency-Key issues one invoice, not two', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfdi-idem-crash-'));
    try {
      const first = await startServer(dir);
      const { key } = await setUpTenant(first.base, undefined, SOAK_TENANTS[0]!);
      const body = JSON.stringify(invoiceBody(1));
      const post = (base: string, extra: Record<string, string> = {}) =>
        fetch(`${base}/cfdis`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'order-1', ...extra },
          body,
        });
      const lost = post(first.base, { 'x-sandbox-scenario': 'pac_slow' }).then(
        (r) => r.status,
        () => 'no answer',
      );
      const watch = new Database(join(dir, 'cfdi.sqlite'), { readonly: true });
      const invoices = () => watch.prepare('select id from cfdis order by id').pluck().all() as string[];
      await until(() => invoices().length > 0, 'the invoice is committed');
      expect(invoices()).toHaveLength(1); // committed, its answer still ~5 s away
      first.proc.kill('SIGKILL');
      await first.proc.exited;
      expect(await lost).toBe('no answer');

      // The client retries the same request with the same key, as it should after a lost answer.
      const second = await startServer(dir);
      const retry = await post(second.base);
      expect([201, 202]).toContain(retry.status);
      const answered = ((await retry.json()) as { id: string }).id;
      const stored = invoices();
      watch.close();
      await stopServer(second.proc);
      expect(stored).toEqual([answered]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
