/**
 * Every core (WORKERS): sandbox issuing (POST /api/v1/cfdis, the 10-concepto benchmark invoice) against src/index.ts
 * on one SQLite database with WORKERS=1 and WORKERS=2, alternated `--rounds` times in one run on the same data (one
 * tenant, rate limit lifted with the operator CLI). Each run: start, 2 s warm-up, `--seconds` measured with
 * `--concurrency` keep-alive client loops, stop. Reported per configuration: the median invoices/s, p50/p99, and the
 * cores each part used in the measured window (supervisor, workers, this load generator: the machine is shared).
 *
 *   bun bench/workers.ts [--seconds 10] [--concurrency 16] [--rounds 2] [--synchronous full|normal]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli } from '../src/cli.ts';
import { INVOICE } from './invoice.ts';
import { closedLoad, type LoadResult } from './load.ts';
import { SOAK_TENANTS, setUpTenant, startApi, stopApi } from './soak.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '2' },
    synchronous: { type: 'string', default: 'full' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const log = (s: string) => console.error(s);

const cpuOf = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
};
const childrenOf = (pid: number) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

interface Run {
  workers: number;
  result: LoadResult;
  cpu: { supervisor: number; workers: number; client: number };
}

const dir = mkdtempSync(join(tmpdir(), 'cfdi-bench-workers-'));
const runs: Run[] = [];
try {
  const setup = await startApi(dir, { WORKERS: '1' });
  const tenant = await setUpTenant(setup.base, undefined, SOAK_TENANTS[0]!);
  await stopApi(setup);
  const plan = await runCli(['set-plan', tenant.tenantId, 'enterprise', '100000000'], { DATA_DIR: dir });
  if (plan.code !== 0) throw new Error(`set-plan: ${plan.out}`);
  const init = { method: 'POST', headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' }, body: JSON.stringify(INVOICE) };
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const workers of [1, 2]) {
      const api = await startApi(dir, { WORKERS: String(workers), SQLITE_SYNCHRONOUS: values.synchronous });
      try {
        const load = (durationMs: number) => closedLoad({ urlOf: () => `${api.base}/cfdis`, init, expected: 201, concurrency, durationMs });
        await load(2000);
        const pids = workers > 1 ? childrenOf(api.proc.pid) : [];
        const before = { supervisor: cpuOf(api.proc.pid), workers: pids.map(cpuOf), client: selfCpu() };
        const result = await load(seconds * 1000);
        const cpu = {
          supervisor: (cpuOf(api.proc.pid) - before.supervisor) / seconds,
          workers: pids.reduce((sum, pid, i) => sum + cpuOf(pid) - before.workers[i]!, 0) / seconds,
          client: (selfCpu() - before.client) / seconds,
        };
        runs.push({ workers, result, cpu });
        log(
          `WORKERS=${workers}: ${Math.round(result.rps)} invoices/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ${result.errors} errors; ` +
            `cores: supervisor ${cpu.supervisor.toFixed(2)}, workers ${cpu.workers.toFixed(2)}, client ${cpu.client.toFixed(2)}`,
        );
      } finally {
        await stopApi(api);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const of = (workers: number) => runs.filter((r) => r.workers === workers);
const one = median(of(1).map((r) => r.result.rps));
console.log(
  `Bun ${Bun.version}, ${cpus().length} cores; SQLITE_SYNCHRONOUS=${values.synchronous}, concurrency ${concurrency}, ${seconds} s per run after 2 s warm-up, ${values.rounds} rounds alternated`,
);
console.log('\n| WORKERS | invoices/s (median) | vs WORKERS=1 | p50 | p99 | errors | cores: supervisor, workers, load generator |');
console.log('|---:|---:|---:|---:|---:|---:|---|');
for (const workers of [1, 2]) {
  const rs = of(workers);
  const rps = median(rs.map((r) => r.result.rps));
  const m = (f: (r: Run) => number) => median(rs.map(f)).toFixed(2);
  console.log(
    `| ${workers} | ${Math.round(rps)} | ${(rps / one).toFixed(2)}× | ${m((r) => r.result.p50)} ms | ${m((r) => r.result.p99)} ms | ${rs.reduce((s, r) => s + r.result.errors, 0)} | ` +
      `${m((r) => r.cpu.supervisor)}, ${m((r) => r.cpu.workers)}, ${m((r) => r.cpu.client)} |`,
  );
}
if (runs.some((r) => r.result.errors > 0)) process.exitCode = 1;
