import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { runCli } from '../../src/cli.ts';
import { invoiceBody, liftRateLimits, seeded, setUpTenant, SOAK_TENANTS, startReceiver, type SoakTenant } from '../../bench/soak.ts';
import { TEST_ENGINE } from '../helpers.ts';
import { POSTGRES, scratchDatabase } from '../postgres.ts';
import { drawFrom, sendUntilAnswered, type Answer } from './clients.ts';
import { type Cluster, clusterTools, freePort, startCluster } from './postgres-cluster.ts';
import { startServer } from './server.ts';

/**
 * Acceptance (issue 21): three instances of src/index.ts on one PostgreSQL database behind a round-robin proxy
 * (haproxy when installed, else one this test runs), under client loops that issue invoices (some `pac_slow`, so a
 * kill lands mid-stamp), Pagos against shared PPD invoices and cancellations, retrying with the same Idempotency-Key
 * on 502/503/no answer, and sending one key to two instances at the same moment. Faults: SIGKILL a random instance
 * every 2–5 s and restart it on its port; SIGSTOP one past its job lease (JOB_LEASE_SECONDS), then SIGCONT; once,
 * stop PostgreSQL immediately and start it again: a server of the test's own (tests/process/postgres-cluster.ts, made
 * by initdb in a temporary folder), never the shared one other tests and programs use; where no server binaries are
 * found that fault skips, saying so (REQUIRE_POSTGRES fails instead when they exist). Afterwards, in SQL: every
 * 201/202 exists; no folio or UUID twice and no gap in a series; one invoice per Idempotency-Key; no PPD invoice
 * overpaid, no instalment number twice; every queued invoice ends vigente or fallido; no job left queued, running or
 * failed; every event delivered and received; per API key, the requests accepted in any minute stay within its
 * plan across all instances; and the statistics (folded rows plus deltas) count every invoice once. Before the faults,
 * a burst of concurrent invoices on one series straight to the three instances: folios without a gap or a repeat, and
 * no issuing transaction re-run after a conflict (issue 37).
 *
 *   TEST_ENGINE=postgres bun test tests/process/multi-instance.test.ts
 * MULTI_FAULT_SECONDS sets how long the faults go on (default 30 s); FAULT_SEED replays a run's draws.
 */
const SECONDS = Number(process.env.MULTI_FAULT_SECONDS ?? 30);
const INSTANCES = 3;
const LEASE_SECONDS = 4;
const CLIENTS = 6;
/** The sandbox plan: the limited key's requests per minute. */
const SANDBOX_PLAN = 60;
const SECRETS = { JWT_SECRET: 'multi-instance-jwt-secret-long-enough-0123456789', MASTER_KEY: '0b'.repeat(32) };
const ENV = {
  ...SECRETS,
  JOB_LEASE_SECONDS: String(LEASE_SECONDS),
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0,1,1,2,2,5,5,10,10,10',
  CANCELLATION_POLL_SECONDS: '1',
};
const ICV = { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' };
const iva16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
/** A PPD invoice of 1,160.00 (1,000.00 + IVA): seven Pagos of 150.00 fit, the eighth overpays. */
const PPD = {
  tipo: 'I',
  metodo_pago: 'PPD',
  forma_pago: '99',
  receptor: ICV,
  conceptos: [{ clave_prod_serv: '84111506', clave_unidad: 'E48', descripcion: 'Servicio', cantidad: 1, valor_unitario: '1000.00', impuestos: iva16 }],
};
const PAGO_AMOUNT = '150.00';
/** The burst before the faults: this many invoices on a series of their own, this many at a time. */
const BURST = 48;
const BURST_CONCURRENCY = 16;
const BURST_SERIE = 'RAFAGA';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type Op = 'stamp' | 'stamp_slow' | 'pago' | 'cancel' | 'duplicate' | 'read';
const MIX: [Op, number][] = [
  ['stamp', 30],
  ['stamp_slow', 8],
  ['pago', 15],
  ['cancel', 6],
  ['duplicate', 8],
  ['read', 20],
];

interface Instance {
  n: number;
  dataDir: string;
  port: number;
  proc?: Bun.Subprocess;
  /** up: serving; down: killed, starting again; frozen: SIGSTOPped (the proxy still sends it requests, as a balancer would). */
  state: 'up' | 'down' | 'frozen';
  /** Exits nobody asked for (not a SIGKILL from this test). */
  exitedAlone: number;
}

/** Retry what a load balancer in front of a dying instance answers, a database that is down, and a key still in use elsewhere. */
const retryable = (a: Answer) => a.status === 502 || a.status === 503 || (a.status === 409 && a.json?.error?.code === 'idempotency_key_in_use');

// Once per `npm test`: in its PostgreSQL pass (TEST_ENGINE=postgres), as the SQLite-only process tests run in the other.
describe.skipIf(!POSTGRES || TEST_ENGINE !== 'postgres')('three instances on one PostgreSQL under faults', () => {
  test(
    `SIGKILL an instance every 2–5 s, SIGSTOP one past its lease, restart PostgreSQL once, for ${SECONDS} s: nothing lost, nothing twice, limits shared`,
    async () => {
      // The shared server (other tests', other programs') is never stopped: its start time is the same afterwards.
      const sharedSince = await startedAt(POSTGRES!);
      const cluster = await ownCluster();
      const scratch = cluster ? await databaseOn(cluster) : await scratchDatabase();
      const env = { ...ENV, DATABASE_URL: scratch.url };
      const sql = postgres(scratch.url, { max: 2, onnotice: () => {} });
      const receiver = await startReceiver();
      const instances: Instance[] = [];
      let proxy: Proxy | undefined;
      try {
        // Set-up on one instance, then plans set while none runs (no cache holds the old ones): eku unlimited for the
        // load, funk on the sandbox plan for the rate-limit loop.
        const setupDir = mkdtempSync(join(tmpdir(), 'cfdi-multi-'));
        dirs.push(setupDir);
        const setup = await startServer(setupDir, env);
        const tenants: SoakTenant[] = [];
        for (const spec of SOAK_TENANTS) tenants.push(await setUpTenant(setup.base, receiver.url, spec));
        const [eku, funk] = tenants as [SoakTenant, SoakTenant];
        const auth = { authorization: `Bearer ${eku.key}`, 'content-type': 'application/json' };
        const series = await fetch(`${setup.base}/series`, { method: 'POST', headers: auth, body: JSON.stringify({ serie: 'MI', default: true }) });
        expect(series.status).toBe(201);
        // The burst's own series (below).
        expect((await fetch(`${setup.base}/series`, { method: 'POST', headers: auth, body: JSON.stringify({ serie: BURST_SERIE }) })).status).toBe(201);
        const ppds: { id: string; fecha: string }[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await fetch(`${setup.base}/cfdis`, { method: 'POST', headers: auth, body: JSON.stringify(PPD) });
          expect(res.status).toBe(201);
          const json = (await res.json()) as { id: string; fecha: string };
          ppds.push({ id: json.id, fecha: json.fecha });
        }
        setup.proc.kill('SIGTERM');
        expect(await setup.proc.exited).toBe(0);
        await liftRateLimits(setupDir, [eku], env);
        const plan = await runCli(['set-plan', funk.tenantId, 'sandbox'], { DATA_DIR: setupDir, ...env });
        expect(plan.code).toBe(0);

        // The instances, each on its own port, and the proxy in front.
        const boot = async (instance: Instance) => {
          for (let attempt = 1; ; attempt++) {
            try {
              const started = await startServer(instance.dataDir, { ...env, PORT: String(instance.port) }, { onLog: keepErrors });
              instance.proc = started.proc;
              instance.port = Number(new URL(started.base).port);
              instance.state = 'up';
              const proc = started.proc;
              void proc.exited.then(() => {
                if (instance.proc === proc && instance.state !== 'down') {
                  instance.exitedAlone++; // e.g. exited on a database error: a supervisor restarts it, so does this test
                  instance.state = 'down';
                  restarts.push(boot(instance));
                }
              });
              return;
            } catch (err) {
              // PostgreSQL may be down, or the port not yet free: a supervisor would try again.
              if (attempt >= 30) throw err;
              await Bun.sleep(500);
            }
          }
        };
        const restarts: Promise<void>[] = [];
        const errorLogs: string[] = [];
        const reRuns: string[] = [];
        const keepErrors = (line: string) => {
          if (line.includes('"msg":"transaction ran again after a conflict"') && line.includes('"transaction":"cfdis.issue"')) reRuns.push(line);
          // Those of a lost database are expected while PostgreSQL restarts; any other is worth reading.
          if (line.includes('"level":"error"') && !line.includes('[ECONNREFUSED]') && errorLogs.length < 20) errorLogs.push(line.slice(0, 4000));
        };
        for (let n = 0; n < INSTANCES; n++) {
          const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-multi-'));
          dirs.push(dataDir);
          instances.push({ n, dataDir, port: 0, state: 'down', exitedAlone: 0 });
        }
        await Promise.all(instances.map(boot));
        proxy = Bun.which('haproxy')
          ? await startHaproxy(instances.map((i) => i.port))
          : await startProxy(() => instances.filter((i) => i.state !== 'down').map((i) => i.port));
        const base = `${proxy.url}/api/v1`;
        const direct = (i: Instance) => `http://127.0.0.1:${i.port}/api/v1`;

        // Before the faults (issue 37): a burst of invoices on one series, BURST_CONCURRENCY at a time straight to the three
        // instances: every one issued, folios 1…BURST without a gap or a repeat, and no issuing transaction re-run: the
        // issuers queue on the series row (read committed, a group per instance) instead of aborting on a conflict.
        const burst = await Promise.all(
          Array.from({ length: BURST_CONCURRENCY }, async (_, c) => {
            const answers: { status: number; folio?: number }[] = [];
            for (let i = c; i < BURST; i += BURST_CONCURRENCY) {
              const res = await fetch(`${direct(instances[i % INSTANCES]!)}/cfdis`, {
                method: 'POST',
                headers: auth,
                body: JSON.stringify({ ...invoiceBody(i), serie: BURST_SERIE }),
              });
              const json = (await res.json()) as { folio?: number };
              answers.push({ status: res.status, folio: json.folio });
            }
            return answers;
          }),
        );
        expect(burst.flat().map((a) => a.status)).toEqual(Array(BURST).fill(201));
        expect(
          burst
            .flat()
            .map((a) => a.folio)
            .sort((a, b) => a! - b!),
        ).toEqual(Array.from({ length: BURST }, (_, i) => i + 1));
        expect(reRuns).toEqual([]);

        const seed = Number(process.env.FAULT_SEED ?? Date.now() % 1e9); // printed below; FAULT_SEED replays the draws
        const random = seeded(seed);
        const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;

        // What the clients were told.
        const acks = new Map<string, { code: 201 | 202; uuid?: string; tipo: 'I' | 'P'; key: string }>();
        const byKey = new Map<string, string>(); // Idempotency-Key → the cfdi_ id it was answered with
        const stamped: string[] = []; // 201 Ingresos that may be cancelled
        const cancelAsked = new Set<string>();
        const cancelled = new Set<string>();
        const problems: string[] = [];
        const counts = { requests: 0, network_errors: 0, retries: 0, kills: 0, replayed: 0, duplicates_sent: 0, conflicts_409: 0, pagos_refused: 0 };
        const problem = (s: string) => {
          if (problems.length < 50) problems.push(s.slice(0, 500));
        };
        const record = (key: string, a: Answer, tipo: 'I' | 'P') => {
          const first = byKey.get(key);
          if (first && first !== a.json.id) problem(`Idempotency-Key ${key} answered ${first} and then ${a.json.id}`);
          byKey.set(key, a.json.id);
          if (a.replayed) counts.replayed++;
          // Two answers for one invoice (a replay, or two instances): the 201 is the one that promised a stamp.
          if (acks.get(a.json.id)?.code !== 201) acks.set(a.json.id, { code: a.status as 201 | 202, uuid: a.json.uuid ?? undefined, tipo, key });
          if (a.status === 201 && tipo === 'I' && a.json.metodo_pago !== 'PPD') stamped.push(a.json.id);
        };
        const postCfdi =
          (key: string, body: string, extra: Record<string, string> = {}, to = () => base) =>
          (signal: AbortSignal) =>
            fetch(`${to()}/cfdis`, { method: 'POST', headers: { ...auth, 'idempotency-key': key, ...extra }, body, signal });

        let stopping = false;
        async function client(c: number) {
          let n = 0;
          while (!stopping) {
            let op = drawFrom(MIX, random);
            if (op === 'cancel' && stamped.every((id) => cancelAsked.has(id))) op = 'read';
            const key = `multi-${c}-${n++}`;
            if (op === 'stamp' || op === 'stamp_slow') {
              const body = JSON.stringify({ ...invoiceBody(n, key), metadata: { idem: key } });
              const a = await sendUntilAnswered(postCfdi(key, body, op === 'stamp_slow' ? { 'x-sandbox-scenario': 'pac_slow' } : {}), counts, {
                retry: retryable,
              });
              if (!a) problem(`${key}: no answer`);
              else if (a.status === 201 || a.status === 202) record(key, a, 'I');
              else problem(`POST /cfdis ${key}: ${a.status} ${a.text.slice(0, 300)}`);
            } else if (op === 'pago') {
              const ppd = pick(ppds);
              const body = JSON.stringify({
                tipo: 'P',
                receptor: { ...ICV, uso_cfdi: 'CP01' },
                metadata: { idem: key },
                pagos: [
                  { fecha_pago: ppd.fecha, forma_pago: '03', moneda: 'MXN', monto: PAGO_AMOUNT, documentos: [{ cfdi_id: ppd.id, imp_pagado: PAGO_AMOUNT }] },
                ],
              });
              const a = await sendUntilAnswered(postCfdi(key, body), counts, { retry: retryable });
              if (!a) problem(`${key}: no answer`);
              else if (a.status === 201 || a.status === 202) record(key, a, 'P');
              // The invoice is paid up (CRP20239) or the payment exceeds what is left (CRP20244): refused, nothing stored.
              else if (a.status === 400 && /CRP2023[9]|CRP20244/.test(a.text)) counts.pagos_refused++;
              else problem(`Pago ${key}: ${a.status} ${a.text.slice(0, 300)}`);
            } else if (op === 'cancel') {
              const id = pick(stamped.filter((s) => !cancelAsked.has(s)));
              cancelAsked.add(id);
              const a = await sendUntilAnswered(
                (signal) =>
                  fetch(`${base}/cfdis/${id}/cancel`, {
                    method: 'POST',
                    headers: { ...auth, 'idempotency-key': key },
                    body: JSON.stringify({ motivo: '02' }),
                    signal,
                  }),
                counts,
                { retry: retryable },
              );
              if (a?.status === 200) cancelled.add(id);
              else if (a?.status !== 202) problem(`cancel ${id}: ${a ? `${a.status} ${a.text.slice(0, 300)}` : 'no answer'}`);
            } else if (op === 'duplicate') {
              // One key, one body, sent at the same moment straight to two instances; then retried through the proxy
              // until an answer that is not a 409 in_use, 502, 503 or silence.
              const up = instances.filter((i) => i.state === 'up');
              if (up.length < 2) continue;
              const first = pick(up);
              const pair = [first, pick(up.filter((i) => i !== first))];
              const body = JSON.stringify({ ...invoiceBody(n, key), metadata: { idem: key } });
              counts.duplicates_sent++;
              const answers = await Promise.all(
                pair.map((i) =>
                  sendUntilAnswered(
                    postCfdi(key, body, {}, () => direct(i)),
                    counts,
                    { maxAttempts: 1 },
                  ),
                ),
              );
              for (const answer of answers) {
                let final = answer;
                if (answer?.status === 409) counts.conflicts_409++;
                if (!final || retryable(final)) final = await sendUntilAnswered(postCfdi(key, body), counts, { retry: retryable });
                if (!final) problem(`${key} (duplicate): no answer`);
                else if (final.status === 201 || final.status === 202) record(key, final, 'I');
                else problem(`duplicate POST /cfdis ${key}: ${final.status} ${final.text.slice(0, 300)}`);
              }
            } else {
              const ids = [...acks.keys()];
              const url = ids.length > 0 && random() < 0.5 ? `${base}/cfdis/${pick(ids)}` : `${base}/cfdis?limit=20`;
              const a = await sendUntilAnswered((signal) => fetch(url, { headers: auth, signal }), counts, { maxAttempts: 1 });
              if (a && a.status !== 200 && a.status !== 502 && a.status !== 503) problem(`GET ${url.replace(base, '')}: ${a.status} ${a.text.slice(0, 300)}`);
            }
          }
        }

        // The limited key, through the proxy to every instance, well above its plan: what each answer was and when.
        const limited: { sent: number; answered: number; status: number }[] = [];
        async function limitedClient() {
          while (!stopping) {
            const sent = Date.now();
            let status = 0;
            try {
              const res = await fetch(`${base}/cfdis?limit=1`, { headers: { authorization: `Bearer ${funk.key}` }, signal: AbortSignal.timeout(15_000) });
              await res.arrayBuffer();
              status = res.status;
            } catch {}
            limited.push({ sent, answered: Date.now(), status });
            await Bun.sleep(20);
          }
        }

        // The faults.
        const faults = { sigstop: false, jobs_running_at_sigstop: 0, postgres_restarted: false, postgres_down_ms: 0 };
        const freeze = async () => {
          const target = instances.find((i) => i.state === 'up');
          if (!target) return;
          target.state = 'frozen';
          faults.jobs_running_at_sigstop = (await sql`select count(*)::int n from jobs where status = 'running'`)[0]!.n;
          target.proc!.kill('SIGSTOP');
          faults.sigstop = true;
          await Bun.sleep((LEASE_SECONDS + 3) * 1000);
          target.proc!.kill('SIGCONT');
          if (target.state === 'frozen') target.state = 'up';
        };
        const restartPostgres = async () => {
          if (!cluster) return;
          const t = performance.now();
          cluster.crash();
          await Bun.sleep(1000);
          await cluster.start();
          faults.postgres_restarted = true;
          faults.postgres_down_ms = Math.round(performance.now() - t);
        };

        const t0 = performance.now();
        const elapsed = () => performance.now() - t0;
        const loops = [...Array.from({ length: CLIENTS }, (_, c) => client(c)), ...Array.from({ length: 3 }, limitedClient)];
        let frozen: Promise<void> | undefined;
        let restarted: Promise<void> | undefined;
        while (elapsed() < SECONDS * 1000) {
          await Bun.sleep(2000 + random() * 3000);
          if (!frozen && elapsed() > SECONDS * 250) frozen = freeze();
          if (!restarted && elapsed() > SECONDS * 550) restarted = restartPostgres();
          const candidates = instances.filter((i) => i.state === 'up');
          if (candidates.length < 2) continue; // one always serves: the others are starting or frozen
          const victim = pick(candidates);
          victim.state = 'down';
          victim.proc!.kill('SIGKILL');
          counts.kills++;
          restarts.push(victim.proc!.exited.then(() => boot(victim)));
        }
        stopping = true;
        await Promise.all(loops);
        await frozen;
        await restarted;
        while (restarts.length > 0) await Promise.all(restarts.splice(0));

        // Drain: no job queued or running, no invoice en_cola, and the receiver has every delivery recorded.
        const drain0 = performance.now();
        let pending = { jobs: 0, en_cola: 0, deliveries: 0 };
        for (;;) {
          const [row] = await sql`select
              (select count(*)::int from jobs where status in ('queued', 'running')) jobs,
              (select count(*)::int from cfdis where status in ('en_cola', 'cancelacion_pendiente')) en_cola,
              (select count(*)::int from webhook_deliveries) deliveries`;
          pending = row as typeof pending;
          if (pending.jobs === 0 && pending.en_cola === 0 && (await receiver.stats()).unique >= pending.deliveries) break;
          if (performance.now() - drain0 > 45_000) {
            problem(`not drained within 45 s: ${JSON.stringify(pending)}, received ${(await receiver.stats()).unique}`);
            break;
          }
          await Bun.sleep(250);
        }
        const drainMs = performance.now() - drain0;
        const exitCodes: (number | null)[] = [];
        for (const instance of instances) {
          instance.state = 'down';
          instance.proc!.kill('SIGTERM');
          exitCodes.push(await instance.proc!.exited);
        }

        // The invariants, on the database.
        const rows = await sql<{ id: string; status: string; uuid: string | null }[]>`select id, status, uuid from cfdis where id = any(${[...acks.keys()]})`;
        const stored = new Map(rows.map((r) => [r.id, r]));
        const missing = [...acks.keys()].filter((id) => !stored.has(id));
        const wrongStatus: string[] = [];
        for (const [id, ack] of acks) {
          const row = stored.get(id);
          if (!row) continue;
          const allowed = cancelled.has(id)
            ? ['cancelado']
            : cancelAsked.has(id)
              ? ['vigente', 'cancelado']
              : ack.code === 202
                ? ['vigente', 'fallido']
                : ['vigente'];
          if (!allowed.includes(row.status)) wrongStatus.push(`${id} (${ack.code}) is ${row.status}`);
          else if (ack.uuid && row.uuid !== ack.uuid) wrongStatus.push(`${id}: answered UUID ${ack.uuid}, stored ${row.uuid}`);
        }
        const list = async (query: postgres.PendingQuery<postgres.Row[]>) => (await query).map((r) => JSON.stringify(r));
        const invariants = {
          missing: missing.slice(0, 10),
          wrong_status: wrongStatus.slice(0, 10),
          duplicate_uuids: await list(sql`select uuid from cfdis where uuid is not null group by uuid having count(*) > 1`),
          folio_twice_or_gap: await list(sql`
            select tenant_id, environment, serie, count(*)::int n, count(distinct folio)::int distinct_folios, min(folio)::int lo, max(folio)::int hi
            from cfdis where serie is not null group by 1, 2, 3
            having count(*) <> count(distinct folio) or min(folio) <> 1 or max(folio) <> count(*)`),
          keys_with_two_invoices: await list(sql`
            select metadata::json->>'idem' idem, count(*)::int n from cfdis
            where metadata::json->>'idem' is not null group by 1 having count(*) > 1`),
          overpaid: await list(sql`
            select d.paid_cfdi_id, c.total, sum(d.imp_pagado::numeric)::text paid
            from cfdi_payment_documents d join cfdis pago on pago.id = d.cfdi_id join cfdis c on c.id = d.paid_cfdi_id
            where d.released_at is null and pago.status not in ('fallido', 'cancelado')
            group by d.paid_cfdi_id, c.total having sum(d.imp_pagado::numeric) > c.total::numeric`),
          instalment_twice: await list(sql`
            select paid_cfdi_id, num_parcialidad from cfdi_payment_documents where released_at is null
            group by 1, 2 having count(*) > 1`),
          not_final: await list(sql`select status, count(*)::int n from cfdis where status in ('en_cola', 'cancelacion_pendiente') group by 1`),
          cancelled_not_asked: (await sql<{ id: string }[]>`select id from cfdis where status = 'cancelado'`)
            .map((r) => r.id)
            .filter((id) => !cancelAsked.has(id)),
          jobs_not_done: await list(sql`select status, type, count(*)::int n from jobs where status <> 'done' group by 1, 2`),
          timbrado_not_once: await list(sql`
            select c.id from cfdis c
            left join (select data::json->>'cfdi_id' cfdi_id, count(*) k from events where type = 'cfdi.timbrado' group by 1) t on t.cfdi_id = c.id
            where c.uuid is not null and coalesce(t.k, 0) <> 1`),
          events_without_delivery: await list(sql`
            select e.id event_id, w.id webhook_id from events e
            join webhooks w on w.tenant_id = e.tenant_id and w.environment = e.environment and e.created_at >= w.created_at
            where not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.webhook_id = w.id)`),
          deliveries_not_delivered: await list(sql`select state, count(*)::int n from webhook_deliveries where state <> 'entregado' group by 1`),
          deliveries_not_received: await (async () => {
            const received = await receiver.ids();
            return (await sql<{ id: string }[]>`select id from webhook_deliveries`).map((r) => r.id).filter((id) => !received[id]);
          })(),
          rate_limit_exceeded: overPlan(limited, SANDBOX_PLAN),
          exit_codes: exitCodes.filter((code) => code !== 0),
          // GET /stats' figures (folded rows plus deltas, folded meanwhile by the instances' schedulers) against the invoices.
          stats_not_matching: await list(sql`
            with truth as (
              select tenant_id, environment, substr(fecha, 1, 7) mes, tipo, status, moneda, count(*)::bigint n, sum((total::numeric * 1000000)::bigint) micros
              from cfdis group by 1, 2, 3, 4, 5, 6
            ), kept as (
              select tenant_id, environment, mes, tipo, status, moneda, sum(cantidad)::bigint n, sum(total_micros)::numeric micros
              from (select * from cfdi_stats union all select tenant_id, environment, mes, tipo, status, moneda, cantidad, total_micros from cfdi_stats_deltas) s
              group by 1, 2, 3, 4, 5, 6 having sum(cantidad) <> 0 or sum(total_micros) <> 0
            )
            select * from truth full join kept using (tenant_id, environment, mes, tipo, status, moneda)
            where truth.n is distinct from kept.n or truth.micros is distinct from kept.micros`),
        };
        const statuses = Object.fromEntries(
          (await sql<{ status: string; n: number }[]>`select status, count(*)::int n from cfdis group by 1`).map((r) => [r.status, r.n]),
        );
        const limitedStatuses: Record<number, number> = {};
        for (const r of limited) limitedStatuses[r.status] = (limitedStatuses[r.status] ?? 0) + 1;
        const summary = {
          seconds: SECONDS,
          seed,
          instances: INSTANCES,
          proxy: proxy.kind,
          requests: counts.requests + limited.length,
          network_errors: counts.network_errors,
          retries: counts.retries,
          replayed: counts.replayed,
          acks: { '201': [...acks.values()].filter((a) => a.code === 201).length, '202': [...acks.values()].filter((a) => a.code === 202).length },
          pagos: [...acks.values()].filter((a) => a.tipo === 'P').length,
          pagos_refused: counts.pagos_refused,
          cancelled: cancelled.size,
          duplicates_sent: counts.duplicates_sent,
          conflicts_409: counts.conflicts_409,
          kills: counts.kills,
          exited_alone: instances.map((i) => i.exitedAlone),
          ...faults,
          limited: limitedStatuses,
          statuses,
          drain_ms: Math.round(drainMs),
          stats: (
            await sql<
              { folded: number; deltas: number }[]
            >`select (select count(*)::int from cfdi_stats) folded, (select count(*)::int from cfdi_stats_deltas) deltas`
          )[0],
          webhooks: await receiver.stats(),
          invariants: Object.fromEntries(Object.entries(invariants).map(([k, v]) => [k, v.length === 0 ? 'ok' : v.length])),
        };
        console.log(`multi-instance fault test: ${JSON.stringify(summary)}`);
        if (problems.length > 0) console.log(`instances' error lines:\n${errorLogs.join('\n')}`);

        // A kill waits while fewer than two instances serve (boots take seconds on a loaded machine): fewer than one per 2–5 s.
        expect(counts.kills).toBeGreaterThanOrEqual(Math.floor(SECONDS / 10));
        expect(faults.sigstop).toBe(true);
        if (cluster) expect(faults.postgres_down_ms).toBeGreaterThan(0);
        expect(await startedAt(POSTGRES!)).toBe(sharedSince);
        expect(acks.size).toBeGreaterThan(0);
        expect(limitedStatuses[429] ?? 0).toBeGreaterThan(0); // the plan was reached: the check below means something
        expect({ problems, ...invariants }).toEqual({
          problems: [],
          missing: [],
          wrong_status: [],
          duplicate_uuids: [],
          folio_twice_or_gap: [],
          keys_with_two_invoices: [],
          overpaid: [],
          instalment_twice: [],
          not_final: [],
          cancelled_not_asked: [],
          jobs_not_done: [],
          timbrado_not_once: [],
          events_without_delivery: [],
          deliveries_not_delivered: [],
          deliveries_not_received: [],
          rate_limit_exceeded: [],
          exit_codes: [],
          stats_not_matching: [],
        });
      } finally {
        for (const instance of instances) if (instance.proc && instance.proc.exitCode === null) instance.proc.kill('SIGKILL');
        await proxy?.stop();
        await receiver.stop();
        await sql.end({ timeout: 1 });
        if (cluster) cluster.remove();
        else await scratch.drop();
      }
    },
    (SECONDS + 180) * 1000,
  );
});

/**
 * Minutes (on this machine's clock, which the database shares) in which more of the key's requests were accepted
 * than its plan allows. A request counts for a minute only when it was both sent and answered within it, and only an
 * answer below 500 other than 429 counts as accepted: an undercount, so an excess found is a real one.
 */
function overPlan(requests: { sent: number; answered: number; status: number }[], plan: number): string[] {
  const perMinute = new Map<number, number>();
  for (const r of requests) {
    const minute = Math.floor(r.sent / 60_000);
    if (minute !== Math.floor(r.answered / 60_000) || r.status === 0 || r.status === 429 || r.status >= 500) continue;
    perMinute.set(minute, (perMinute.get(minute) ?? 0) + 1);
  }
  return [...perMinute].filter(([, n]) => n > plan).map(([minute, n]) => `${new Date(minute * 60_000).toISOString()}: ${n} accepted, plan ${plan}`);
}

/**
 * The test's own PostgreSQL for the restart fault, or none (that fault skips, saying why in one line). Under
 * REQUIRE_POSTGRES (CI) with the server binaries present it must run: failing to make one fails the test.
 */
async function ownCluster(): Promise<Cluster | undefined> {
  const tools = clusterTools();
  if ('missing' in tools) {
    if (process.env.REQUIRE_POSTGRES && tools.bin) throw new Error(`REQUIRE_POSTGRES: the restart fault cannot run: ${tools.missing}`);
    console.log(`multi-instance: the PostgreSQL restart fault needs a server of its own: ${tools.missing}; skipped`);
    return undefined;
  }
  return startCluster(tools);
}

/** When the server at `url` started (pg_postmaster_start_time), as text. */
async function startedAt(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return (await sql<{ at: string }[]>`select pg_postmaster_start_time()::text at`)[0]!.at;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** A database on the test's own server (the cluster goes as a whole afterwards). */
async function databaseOn(cluster: Cluster): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe('create database multi_instance');
  } finally {
    await admin.end({ timeout: 1 });
  }
  const url = new URL(cluster.url);
  url.pathname = '/multi_instance';
  return { url: url.toString(), drop: async () => {} };
}

interface Proxy {
  kind: 'haproxy' | 'bun';
  url: string;
  stop(): Promise<void>;
}

/**
 * haproxy, round-robin over the instances' ports (each restarts on its own), checking /health/live every 500 ms so
 * a dead instance leaves the rotation; `retries 0`: a request an instance did not answer is the client's to retry.
 */
async function startHaproxy(ports: number[]): Promise<Proxy> {
  const port = freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cfdi-haproxy-'));
  dirs.push(dir);
  const config = [
    'defaults',
    '  mode http',
    '  retries 0',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 30s',
    'frontend api',
    `  bind 127.0.0.1:${port}`,
    '  default_backend instances',
    'backend instances',
    '  balance roundrobin',
    '  option httpchk GET /api/v1/health/live',
    ...ports.map((p, n) => `  server instance${n} 127.0.0.1:${p} check inter 500ms fall 1 rise 1`),
  ].join('\n');
  writeFileSync(join(dir, 'haproxy.cfg'), `${config}\n`);
  const proc = Bun.spawn(['haproxy', '-db', '-f', join(dir, 'haproxy.cfg')], { stdout: 'ignore', stderr: 'pipe' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if ((await fetch(`${url}/api/v1/health/live`).catch(() => undefined))?.status === 200) {
      return { kind: 'haproxy', url, stop: async () => void (proc.kill(), await proc.exited) };
    }
    await Bun.sleep(100);
  }
  proc.kill();
  throw new Error(`haproxy did not start: ${await new Response(proc.stderr).text()}`);
}

/**
 * Without haproxy: a round-robin proxy over the instances `targets()` names (those not killed; a frozen one stays, as
 * a balancer would keep it until its checks fail). It retries nothing: no answer from the instance (killed, or cut
 * mid-answer) is a 502 to the client, who retries with its Idempotency-Key.
 */
async function startProxy(targets: () => number[]): Promise<Proxy> {
  let next = 0;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 60,
    async fetch(req) {
      const ports = targets();
      if (ports.length === 0) return new Response('no instance', { status: 502 });
      const url = new URL(req.url);
      url.port = String(ports[next++ % ports.length]);
      const headers = new Headers(req.headers);
      headers.delete('host');
      headers.delete('accept-encoding');
      try {
        const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.arrayBuffer();
        const res = await fetch(url, { method: req.method, headers, body, redirect: 'manual', signal: req.signal });
        // Buffered: an instance killed mid-answer is a 502, not a truncated body.
        const bytes = await res.arrayBuffer();
        const out = new Headers(res.headers);
        out.delete('content-encoding');
        out.delete('content-length');
        out.delete('transfer-encoding');
        return new Response(bytes, { status: res.status, headers: out });
      } catch {
        return new Response('bad gateway', { status: 502 });
      }
    },
  });
  return { kind: 'bun', url: `http://127.0.0.1:${server.port}`, stop: async () => void (await server.stop(true)) };
}
