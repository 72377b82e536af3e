/**
 * The single executable against `bun src/index.ts`: build time and size, time to "listening" on an empty DATA_DIR
 * (migrations and the SAT catalogs loaded) and on a used one, resident memory after start, and 200 invoices stamped
 * one after another through HTTP.   npm run bench:binary
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileExecutable } from '../src/compile.ts';
import { DEMO_INVOICE } from '../src/demo.ts';
import { issuer, serverTarget } from '../tests/helpers.ts';
import { post, startServer, stopServer } from '../tests/process/server.ts';

const work = mkdtempSync(join(tmpdir(), 'cfdi-bench-binary-'));
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

let t = performance.now();
const exe = await compileExecutable({ outfile: join(work, 'cfdi-api') });
const buildMs = performance.now() - t;
console.log(`build ${(buildMs / 1000).toFixed(1)} s, ${(statSync(exe).size / 1e6).toFixed(1)} MB`);

async function measure(label: string, command: string[]) {
  const dataDir = mkdtempSync(join(work, 'data-'));
  const timed = async () => {
    const started = performance.now();
    const server = await startServer(dataDir, {}, { command, cwd: command.length > 1 ? undefined : work });
    return { server, ms: performance.now() - started };
  };
  const cold = await timed();
  const { tenant, key } = await issuer(serverTarget(cold.server.base), { email: `${label}@example.com`, keys: ['test'], csd: true });
  const tenantId = tenant.id;
  await stopServer(cold.server.proc);
  Bun.spawnSync([process.execPath, 'src/cli.ts', 'set-plan', tenantId, 'enterprise', '100000'], { env: { ...process.env, DATA_DIR: dataDir } });
  const warm = await timed();
  const idle = rssMb(warm.server.proc.pid);
  const n = 200;
  t = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await post(warm.server.base, '/cfdis', DEMO_INVOICE, key);
    if (res.status !== 201) throw new Error(`${label}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
  const perInvoice = (performance.now() - t) / n;
  const loaded = rssMb(warm.server.proc.pid);
  await stopServer(warm.server.proc);
  return {
    label,
    cold_start_ms: Math.round(cold.ms),
    warm_start_ms: Math.round(warm.ms),
    rss_idle_mb: Math.round(idle),
    rss_after_200_mb: Math.round(loaded),
    ms_per_invoice: +perInvoice.toFixed(2),
  };
}

const rows = [await measure('source', [process.execPath, 'src/index.ts']), await measure('binary', [exe])];
console.table(rows);
console.log(JSON.stringify({ build_s: +(buildMs / 1000).toFixed(1), size_mb: +(statSync(exe).size / 1e6).toFixed(1), rows }));
rmSync(work, { recursive: true, force: true });
