/**
 * Scale-out (issue 21), in one run with the same client load: sandbox issuing (POST /api/v1/cfdis, the 10-concepto
 * benchmark invoice, stamped in-process by the sandbox) on 1 instance on SQLite, then 1, 2 and 3 instances of
 * src/index.ts on one PostgreSQL database. Each configuration: fresh database, one tenant (CSD, sk_test_ key, rate
 * limit lifted with the operator CLI while no instance runs), then `--concurrency` keep-alive client loops sending
 * round-robin straight to the instances' ports (no balancer: its CPU would be the load generator's), 2 s warm-up and
 * `--seconds` measured. Reported: invoices/s, p50/p99, errors, and the CPU each part used in the measured window
 * (server processes from /proc/<pid>/stat, PostgreSQL's processes by name, this load generator), as cores.
 *
 * The ceiling, measured in the same run: node:crypto RSA-2048 SHA-256 signatures per second on one thread ÷ 2 (every
 * invoice needs two: the Sello and the sandbox's SelloSAT), times the machine's cores. Figures are ratios to it.
 *
 *   bun bench/instances.ts [--seconds 10] [--concurrency 16]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { runCli } from '../src/cli.ts';
import { INVOICE } from './invoice.ts';
import { type Api, SOAK_TENANTS, setUpTenant, startApi, stopApi } from './soak.ts';
import { signaturesPerSecond } from './ceiling.ts';
import { closedLoad, errorsText, type LoadResult as Result } from './load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '16' },
    postgres: { type: 'string', default: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const log = (s: string) => console.error(s);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const SECRETS = { JWT_SECRET: 'bench-instances-jwt-secret-long-enough-0123456789', MASTER_KEY: '0c'.repeat(32) };
const cores = cpus().length;
const load0 = loadavg();

// The ceiling.
const signPerSec = signaturesPerSecond();
const oneCore = signPerSec / 2;
const ceiling = oneCore * cores;
log(`node:crypto sign: ${fmt(signPerSec)}/s → ${fmt(oneCore)} invoices/s per core, ${fmt(ceiling)} on ${cores} cores`);

// CPU time, in seconds, of processes: ours by pid, PostgreSQL's by name (its backends come and go).
const TICK = 100; // USER_HZ on Linux
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK; // utime, stime
  } catch {
    return 0;
  }
}
function postgresCpu(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuOf(Number(entry));
    } catch {}
  }
  return total;
}
const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** `concurrency` keep-alive loops for `durationMs`, each request to the next base in turn; good only with 201. */
function load(bases: string[], init: RequestInit, durationMs: number) {
  return closedLoad({ urlOf: (n) => `${bases[n % bases.length]}/cfdis`, init, expected: 201, concurrency, durationMs });
}

interface Run {
  name: string;
  instances: number;
  result: Result;
  /** Cores used in the measured window. */
  cpu: { servers: number; perServer: number[]; postgres?: number; client: number };
  /** PostgreSQL: transactions committed and rolled back in the window (a rollback is mostly a serialization conflict re-run). */
  transactions?: { commits: number; rollbacks: number };
}

const transactionsOf = async (db: string) =>
  (await admin<{ c: number; r: number }[]>`select xact_commit::int c, xact_rollback::int r from pg_stat_database where datname = ${db}`)[0]!;

const admin = postgres(values.postgres, { max: 1, onnotice: () => {} });
const created: string[] = [];

/** One configuration: fresh database, tenant set up on one instance, plan lifted with none running, `n` instances, the load. */
async function measure(name: string, engine: 'sqlite' | 'postgres', n: number): Promise<Run> {
  const dirs = Array.from({ length: n }, () => mkdtempSync(join(tmpdir(), 'cfdi-bench-instances-')));
  let env: Record<string, string> = {};
  const db = `cfdi_bench_instances_${process.pid}_${n}`;
  if (engine === 'postgres') {
    await admin.unsafe(`drop database if exists ${db} with (force)`);
    await admin.unsafe(`create database ${db}`);
    created.push(db);
    const url = new URL(values.postgres);
    url.pathname = `/${db}`;
    env = { DATABASE_URL: url.toString(), ...SECRETS };
  }
  const apis: Api[] = [];
  try {
    const setup = await startApi(dirs[0]!, env);
    const tenant = await setUpTenant(setup.base, undefined, SOAK_TENANTS[0]!);
    await stopApi(setup);
    const plan = await runCli(['set-plan', tenant.tenantId, 'enterprise', '100000000'], { DATA_DIR: dirs[0]!, ...env });
    if (plan.code !== 0) throw new Error(`set-plan: ${plan.out}`);
    for (const dir of dirs) apis.push(await startApi(dir, env));
    const init = { method: 'POST', headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' }, body: JSON.stringify(INVOICE) };
    const bases = apis.map((a) => a.base);
    await load(bases, init, 2000); // warm-up
    const before = { servers: apis.map((a) => cpuOf(a.proc.pid)), postgres: engine === 'postgres' ? postgresCpu() : 0, client: selfCpu() };
    const xacts = engine === 'postgres' ? await transactionsOf(db) : undefined;
    const result = await load(bases, init, seconds * 1000);
    // The statistics collector reports a backend's counts when its transaction ends, at most every 0.5–1 s.
    const transactions = xacts && (await Bun.sleep(1500), await transactionsOf(db));
    const perServer = apis.map((a, i) => (cpuOf(a.proc.pid) - before.servers[i]!) / seconds);
    const cpu = {
      servers: perServer.reduce((a, b) => a + b, 0),
      perServer,
      postgres: engine === 'postgres' ? (postgresCpu() - before.postgres) / seconds : undefined,
      client: (selfCpu() - before.client) / seconds,
    };
    log(
      `${name}: ${fmt(result.rps)} invoices/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ${result.errors} errors; ` +
        `CPU servers ${cpu.servers.toFixed(2)}${cpu.postgres === undefined ? '' : `, postgres ${cpu.postgres.toFixed(2)}`}, client ${cpu.client.toFixed(2)}`,
    );
    return {
      name,
      instances: n,
      result,
      cpu,
      transactions: xacts && transactions ? { commits: transactions.c - xacts.c, rollbacks: transactions.r - xacts.r } : undefined,
    };
  } finally {
    for (const api of apis) await stopApi(api);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

const runs: Run[] = [];
try {
  runs.push(await measure('SQLite, 1 instance', 'sqlite', 1));
  for (const n of [1, 2, 3]) runs.push(await measure(`PostgreSQL, ${n} instance${n > 1 ? 's' : ''}`, 'postgres', n));
} finally {
  for (const db of created) await admin.unsafe(`drop database if exists ${db} with (force)`);
  await admin.end({ timeout: 1 });
}

// The report.
const sqlite = runs[0]!;
const cpuText = (run: Run) =>
  [
    `servers ${run.cpu.servers.toFixed(2)}${run.instances > 1 ? ` (${run.cpu.perServer.map((c) => c.toFixed(2)).join(' + ')})` : ''}`,
    run.cpu.postgres === undefined ? undefined : `PostgreSQL ${run.cpu.postgres.toFixed(2)}`,
    `client ${run.cpu.client.toFixed(2)}`,
  ]
    .filter(Boolean)
    .join(', ');
const total = (run: Run) => run.cpu.servers + (run.cpu.postgres ?? 0) + run.cpu.client;
console.log(
  [
    `Bun ${Bun.version}, ${cores} cores; load average before the run ${load0.map((l) => l.toFixed(2)).join(' / ')}, after ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')}; concurrency ${concurrency}, ${seconds} s per configuration after 2 s warm-up`,
    '',
    `Ceiling: node:crypto RSA-2048 SHA-256 ${fmt(signPerSec)} sign/s on one thread → ${fmt(oneCore)} invoices/s per core, ${fmt(ceiling)} on ${cores} cores.`,
    '',
    '| configuration | throughput | of the machine ceiling | vs SQLite | p50 | p99 | errors | CPU used, cores (of ' +
      cores +
      ') | PostgreSQL rollbacks per commit |',
    '|---|---:|---:|---:|---:|---:|---:|---|---:|',
    ...runs.map(
      (run) =>
        `| ${run.name} | ${fmt(run.result.rps)} invoices/s | ${((run.result.rps / ceiling) * 100).toFixed(1)} % | ${(run.result.rps / sqlite.result.rps).toFixed(2)}× | ` +
        `${run.result.p50.toFixed(1)} ms | ${run.result.p99.toFixed(1)} ms | ${errorsText(run.result)} | ${cpuText(run)}; total ${total(run).toFixed(2)} | ` +
        `${run.transactions ? (run.transactions.rollbacks / Math.max(1, run.transactions.commits)).toFixed(2) : '—'} |`,
    ),
  ].join('\n'),
);
if (runs.some((r) => r.result.errors > 0)) process.exitCode = 1;
