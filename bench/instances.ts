/**
 * Scale-out (issues 21 and 37), in one run with the same client load: sandbox issuing (POST /api/v1/cfdis, the
 * 10-concepto benchmark invoice, stamped in-process by the sandbox) on 1 instance on SQLite, then 1, 2 and 3 instances
 * of src/index.ts on one PostgreSQL database, with one busy tenant; then 16 tenants (the two test taxpayers, eight
 * tenants each) on 1 and 3 PostgreSQL instances. Each configuration: fresh database, its tenants (CSD, sk_test_ key,
 * rate limit lifted with the operator CLI while no instance runs), then `--concurrency` keep-alive client loops whose
 * n-th request goes to instance n mod instances and tenant n mod tenants, straight to the instances' ports (no
 * balancer: its CPU would be the load generator's), 2 s warm-up and `--seconds` measured. Reported: invoices/s,
 * p50/p99, errors, PostgreSQL's rolled-back transactions per commit (pg_stat_database), and the CPU each part used
 * in the measured window, as cores and per invoice: the server processes (/proc/<pid>/stat), PostgreSQL's backends
 * serving the benchmark's database (pg_stat_activity's pids, alive at both ends of the window) and its shared
 * background processes (WAL writer, checkpointer…: the machine's other users of PostgreSQL count there too), and this
 * load generator.
 *
 * The ceiling, measured in the same run: node:crypto RSA-2048 SHA-256 signatures per second on one thread ÷ 2 (every
 * invoice needs two: the Sello and the sandbox's SelloSAT), times the machine's cores. Figures are ratios to it.
 *
 *   bun bench/instances.ts [--seconds 10] [--concurrency 16] [--only sqlite,pg1,pg2,pg3,pg1x16,pg3x16]
 *   BENCH_PROFILE=/tmp/prof bun bench/instances.ts --only pg1   # each server writes a CPU profile there when it stops
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { INVOICE } from './invoice.ts';
import { runCli } from '../src/cli.ts';
import { type Api, liftRateLimits, SOAK_TENANTS, type SoakTenant, setUpTenant, startApi, stopApi, type TenantSpec } from './soak.ts';
import { signaturesPerSecond } from './ceiling.ts';
import { closedLoad, errorsText, type LoadResult as Result } from './load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '16' },
    postgres: { type: 'string', default: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    only: { type: 'string' },
  },
});
const only = values.only?.split(',');
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
/** PostgreSQL's CPU so far: its backends serving `db` (by pid), and its background processes (shared by every database). */
async function postgresCpu(db: string): Promise<{ backends: Map<number, number>; background: number }> {
  const rows = await admin<{ pid: number; datname: string | null; backend_type: string }[]>`
    select pid, datname, backend_type from pg_stat_activity where datname = ${db} or datname is null`;
  const backends = new Map<number, number>();
  let background = 0;
  for (const r of rows) {
    if (r.datname === db) backends.set(r.pid, cpuOf(r.pid));
    else background += cpuOf(r.pid);
  }
  return { backends, background };
}
/** CPU seconds between two readings: backends alive at both ends (a pool's connections live through the window). */
function postgresCpuUsed(before: Awaited<ReturnType<typeof postgresCpu>>, after: Awaited<ReturnType<typeof postgresCpu>>) {
  let backends = 0;
  for (const [pid, cpu] of after.backends) if (before.backends.has(pid)) backends += cpu - before.backends.get(pid)!;
  return { backends, background: after.background - before.background };
}
const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** `concurrency` keep-alive loops for `durationMs`, the n-th request to instance n mod instances for tenant n mod tenants; good only with 201. */
function load(bases: string[], keys: string[], durationMs: number) {
  const inits = keys.map((key) => ({
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(INVOICE),
  }));
  return closedLoad({ urlOf: (n) => `${bases[n % bases.length]}/cfdis`, init: (n) => inits[n % inits.length]!, expected: 201, concurrency, durationMs });
}

const PASSWORD = 'a-long-password-1';

/** A tenant the operator created: its admin logs in, makes an sk_test_ key and uploads the test CSD. */
async function operatorTenant(base: string, spec: TenantSpec, email: string, tenantId: string): Promise<SoakTenant> {
  const call = async (path: string, init: RequestInit, status: number) => {
    const res = await fetch(`${base}${path}`, init);
    const text = await res.text();
    if (res.status !== status) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const json = { 'content-type': 'application/json' };
  const session = await call('/auth/login', { method: 'POST', headers: json, body: JSON.stringify({ email, password: PASSWORD }) }, 200);
  const auth = { authorization: `Bearer ${session.access_token}` };
  const key = (await call('/api-keys', { method: 'POST', headers: { ...json, ...auth }, body: JSON.stringify({ name: 'bench' }) }, 201)).key as string;
  const dir = join(import.meta.dir, '../tests/fixtures/csd', spec.csd.folder);
  const form = new FormData();
  form.append('cer', new Blob([readFileSync(join(dir, `${spec.csd.base}.cer`))]), 'csd.cer');
  form.append('key', new Blob([readFileSync(join(dir, `${spec.csd.base}.key`))]), 'csd.key');
  form.append('password', readFileSync(join(dir, 'password.txt'), 'utf8').trim());
  await call('/csds', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form }, 201);
  return { name: spec.name, email, password: PASSWORD, tenantId, key, webhookId: '' };
}

interface Run {
  name: string;
  instances: number;
  tenants: number;
  result: Result;
  /** Cores used in the measured window; PostgreSQL's backends serving the benchmark, and its shared background processes. */
  cpu: { servers: number; perServer: number[]; postgres?: number; background?: number; client: number };
  /** PostgreSQL: transactions committed and rolled back in the window (a rollback is mostly a serialization conflict re-run). */
  transactions?: { commits: number; rollbacks: number };
}

const transactionsOf = async (db: string) =>
  (await admin<{ c: number; r: number }[]>`select xact_commit::int c, xact_rollback::int r from pg_stat_database where datname = ${db}`)[0]!;

const admin = postgres(values.postgres, { max: 1, onnotice: () => {} });
const created: string[] = [];

/** One configuration: fresh database, tenant set up on one instance, plan lifted with none running, `n` instances, the load. */
async function measure(name: string, engine: 'sqlite' | 'postgres', n: number, tenantCount: number): Promise<Run> {
  const dirs = Array.from({ length: n }, () => mkdtempSync(join(tmpdir(), 'cfdi-bench-instances-')));
  let env: Record<string, string> = {};
  const db = `cfdi_bench_instances_${process.pid}_${n}_${tenantCount}`;
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
    // The first tenant registers through the API; the others are the operator's (create-tenant: sign-ups are 5 an hour per address).
    const made: { spec: TenantSpec; email: string; tenantId: string }[] = [];
    for (let i = 1; i < tenantCount; i++) {
      const spec = SOAK_TENANTS[i % SOAK_TENANTS.length]!;
      const email = `${spec.name}${i}-${crypto.randomUUID().slice(0, 8)}@example.com`;
      const t = spec.tenant;
      const args = [
        'create-tenant',
        '--rfc',
        t.rfc,
        '--nombre',
        t.nombre,
        '--regimen-fiscal',
        t.regimen_fiscal,
        '--codigo-postal',
        t.codigo_postal,
        '--email',
        email,
      ];
      const created = await runCli(args, { DATA_DIR: dirs[0]!, ADMIN_PASSWORD: PASSWORD, ...env });
      if (created.code !== 0) throw new Error(`create-tenant: ${created.out}`);
      made.push({ spec, email, tenantId: JSON.parse(created.out).tenant_id });
    }
    const setup = await startApi(dirs[0]!, env);
    const tenants: SoakTenant[] = [await setUpTenant(setup.base, undefined, SOAK_TENANTS[0]!)];
    for (const { spec, email, tenantId } of made) tenants.push(await operatorTenant(setup.base, spec, email, tenantId));
    await stopApi(setup);
    await liftRateLimits(dirs[0]!, tenants, env);
    for (const dir of dirs) apis.push(await startApi(dir, env));
    const keys = tenants.map((t) => t.key);
    const bases = apis.map((a) => a.base);
    await load(bases, keys, 2000); // warm-up
    const pgBefore = engine === 'postgres' ? await postgresCpu(db) : undefined;
    const before = { servers: apis.map((a) => cpuOf(a.proc.pid)), client: selfCpu() };
    const xacts = engine === 'postgres' ? await transactionsOf(db) : undefined;
    const result = await load(bases, keys, seconds * 1000);
    const perServer = apis.map((a, i) => (cpuOf(a.proc.pid) - before.servers[i]!) / seconds);
    const client = (selfCpu() - before.client) / seconds;
    const pgUsed = pgBefore && postgresCpuUsed(pgBefore, await postgresCpu(db));
    // The statistics collector reports a backend's counts when its transaction ends, at most every 0.5–1 s.
    const transactions = xacts && (await Bun.sleep(1500), await transactionsOf(db));
    const cpu = {
      servers: perServer.reduce((a, b) => a + b, 0),
      perServer,
      postgres: pgUsed && pgUsed.backends / seconds,
      background: pgUsed && pgUsed.background / seconds,
      client,
    };
    log(
      `${name}: ${fmt(result.rps)} invoices/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ${result.errors} errors; ` +
        `CPU servers ${cpu.servers.toFixed(2)}${cpu.postgres === undefined ? '' : `, postgres ${cpu.postgres.toFixed(2)}`}, client ${cpu.client.toFixed(2)}`,
    );
    return {
      name,
      instances: n,
      tenants: tenantCount,
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
const configurations: [id: string, name: string, engine: 'sqlite' | 'postgres', instances: number, tenants: number][] = [
  ['sqlite', 'SQLite, 1 instance, 1 tenant', 'sqlite', 1, 1],
  ['pg1', 'PostgreSQL, 1 instance, 1 tenant', 'postgres', 1, 1],
  ['pg2', 'PostgreSQL, 2 instances, 1 tenant', 'postgres', 2, 1],
  ['pg3', 'PostgreSQL, 3 instances, 1 tenant', 'postgres', 3, 1],
  ['pg1x16', 'PostgreSQL, 1 instance, 16 tenants', 'postgres', 1, 16],
  ['pg3x16', 'PostgreSQL, 3 instances, 16 tenants', 'postgres', 3, 16],
];
try {
  for (const [id, name, engine, n, tenants] of configurations) if (!only || only.includes(id)) runs.push(await measure(name, engine, n, tenants));
} finally {
  for (const db of created) await admin.unsafe(`drop database if exists ${db} with (force)`);
  await admin.end({ timeout: 1 });
}

// The report.
const first = runs[0]!;
const onePg = runs.find((r) => r.name.startsWith('PostgreSQL, 1 instance, 1 tenant'));
/** CPU per invoice in milliseconds: cores × 1000 ÷ invoices/s. */
const perInvoice = (cores: number | undefined, run: Run) => (cores === undefined ? '—' : ((cores * 1000) / Math.max(1, run.result.rps)).toFixed(2));
const total = (run: Run) => run.cpu.servers + (run.cpu.postgres ?? 0) + (run.cpu.background ?? 0) + run.cpu.client;
console.log(
  [
    `Bun ${Bun.version}, ${cores} cores; load average before the run ${load0.map((l) => l.toFixed(2)).join(' / ')}, after ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')}; concurrency ${concurrency}, ${seconds} s per configuration after 2 s warm-up`,
    '',
    `Ceiling: node:crypto RSA-2048 SHA-256 ${fmt(signPerSec)} sign/s on one thread → ${fmt(oneCore)} invoices/s per core, ${fmt(ceiling)} on ${cores} cores.`,
    '',
    `| configuration | throughput | of the machine ceiling | vs ${first.name} |${onePg ? ' vs PostgreSQL 1 instance, 1 tenant |' : ''} p50 | p99 | errors | ` +
      `CPU used, cores (of ${cores}) | CPU per invoice, ms: servers / PostgreSQL backends (+ background) | PostgreSQL rollbacks per commit |`,
    `|---|---:|---:|---:|${onePg ? '---:|' : ''}---:|---:|---:|---|---|---:|`,
    ...runs.map(
      (run) =>
        `| ${run.name} | ${fmt(run.result.rps)} invoices/s | ${((run.result.rps / ceiling) * 100).toFixed(1)} % | ${(run.result.rps / first.result.rps).toFixed(2)}× | ` +
        (onePg ? `${(run.result.rps / onePg.result.rps).toFixed(2)}× | ` : '') +
        `${run.result.p50.toFixed(1)} ms | ${run.result.p99.toFixed(1)} ms | ${errorsText(run.result)} | ` +
        `servers ${run.cpu.servers.toFixed(2)}${run.instances > 1 ? ` (${run.cpu.perServer.map((c) => c.toFixed(2)).join(' + ')})` : ''}` +
        `${run.cpu.postgres === undefined ? '' : `, PostgreSQL ${run.cpu.postgres.toFixed(2)} + ${run.cpu.background!.toFixed(2)}`}, client ${run.cpu.client.toFixed(2)}; total ${total(run).toFixed(2)} | ` +
        `${perInvoice(run.cpu.servers, run)} / ${perInvoice(run.cpu.postgres, run)}${run.cpu.background === undefined ? '' : ` (+ ${perInvoice(run.cpu.background, run)})`} | ` +
        `${run.transactions ? (run.transactions.rollbacks / Math.max(1, run.transactions.commits)).toFixed(3) : '—'} |`,
    ),
  ].join('\n'),
);
if (runs.some((r) => r.result.errors > 0)) process.exitCode = 1;
