/**
 * CFDI issuing (issues 4 and 22), in one run:
 *  1. the ceiling: node:crypto RSA-2048 SHA-256 signatures per second on one thread (and `openssl speed`); each
 *     invoice needs two (the Sello with the tenant's CSD, the sandbox SelloSAT), so the machine issues at most
 *     sign/s ÷ 2 × cores invoices per second, and one invoice's two signatures take 2 ÷ sign/s;
 *  2. sandbox POST /api/v1/cfdis of a 10-concepto invoice over HTTP, at concurrency 1, 8 and 32, against the service
 *     as `npm start` runs it: src/index.ts in its default configuration (one process per two cores, SQLite with
 *     SQLITE_SYNCHRONOUS=full in a temp DATA_DIR, request logs at info), one tenant set up through the API (the test
 *     CSD, an sk_test_ key) and its limit lifted with the operator CLI;
 *  3. GET /api/v1/cfdis?limit=100 on 100,000 invoices: the first page against a page 90,000 rows deep
 *     (bench/servers/cfdis.ts, which seeds the rows straight into SQLite).
 * This process is the load generator.
 *
 *   bun bench/cfdis.ts                    # defaults: 2 s warm-up + 10 s per run, 100,000 rows, cursor 900 pages in
 *   bun bench/cfdis.ts --seconds 5 --rows 20000 --depth 100
 *   bun bench/cfdis.ts --workers 1        # the service with WORKERS=1 (one process) instead of the default
 *   bun bench/cfdis.ts --profile /tmp/prof   # every process writes a CPU profile there (.cpuprofile + Markdown) on exit
 *   bun bench/cfdis.ts --durability --seconds 10   # only: POST /cfdis at concurrency 8 with SQLITE_SYNCHRONOUS normal, then full
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { INVOICE } from './invoice.ts';
import { spawnReady } from './servers/spawn.ts';
import { signaturesPerSecond } from './ceiling.ts';
import { closedLoad, errorsText, type LoadResult as Result } from './load.ts';
import { startService as startServiceAt } from './service.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rows: { type: 'string', default: '100000' },
    depth: { type: 'string', default: '900' },
    workers: { type: 'string' },
    profile: { type: 'string' },
    durability: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const rows = Number(values.rows);
const depth = Number(values.depth);
const cores = cpus().length;
const log = (s: string) => console.error(s);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const profiling: Record<string, string> = values.profile ? { BUN_OPTIONS: `--cpu-prof --cpu-prof-md --cpu-prof-dir=${values.profile}` } : {};

/** The service with the benchmark's options: `--workers`, `--profile`. */
const startService = (env: Record<string, string>) => startServiceAt({ ...env, ...profiling, ...(values.workers ? { WORKERS: values.workers } : {}) });

// The cost of syncing every commit (SQLITE_SYNCHRONOUS=full) on issuing, against syncing at checkpoints only.
if (values.durability) {
  const runs: [string, Result][] = [];
  for (const synchronous of ['normal', 'full']) {
    const server = await startService({ SQLITE_SYNCHRONOUS: synchronous });
    try {
      const post = { method: 'POST', headers: { ...server.headers, 'content-type': 'application/json' }, body: JSON.stringify(INVOICE) };
      runs.push([synchronous, await measure(`${server.url}/cfdis`, post, 201, 8)]);
    } finally {
      await server.stop();
    }
  }
  const normal = runs[0]![1];
  console.log(
    [
      `Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; ${seconds} s per run after 2 s warm-up`,
      '',
      '| SQLITE_SYNCHRONOUS | concurrency | throughput | p50 | p99 | errors | vs normal |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...runs.map(
        ([s, r]) =>
          `| \`${s}\` | 8 | ${fmt(r.rps)} invoices/s | ${r.p50.toFixed(2)} ms | ${r.p99.toFixed(2)} ms | ${r.errors} | ${((r.rps / normal.rps) * 100).toFixed(1)} % |`,
      ),
    ].join('\n'),
  );
  process.exit(0);
}

// 1. The ceiling.
const signPerSec = signaturesPerSecond();
const ceiling = (signPerSec / 2) * cores;
const twoSignaturesMs = (2 / signPerSec) * 1000;
log(`node:crypto sign: ${fmt(signPerSec)}/s → ceiling ${fmt(ceiling)} invoices/s on ${cores} cores; two signatures ${twoSignaturesMs.toFixed(2)} ms`);

let opensslSign: number | undefined;
if (Bun.which('openssl')) {
  const out = Bun.spawnSync(['openssl', 'speed', '-seconds', '3', 'rsa2048'], { stderr: 'ignore' }).stdout.toString();
  const m = /^rsa\s+2048 bits\s+\S+\s+\S+\s+([\d.]+)/m.exec(out);
  opensslSign = m ? Number(m[1]) : undefined;
  log(`openssl speed rsa2048: ${opensslSign ?? 'unparsed'} sign/s`);
} else log('openssl not found: skipped');

// Servers and the load loop.
/** bench/servers/cfdis.ts (the app with `--seed N` rows copied into SQLite), for the listing. */
async function startServer(args: string[]) {
  const prof = values.profile ? ['--cpu-prof', '--cpu-prof-md', `--cpu-prof-dir=${values.profile}`] : [];
  const script = new URL('./servers/cfdis.ts', import.meta.url).pathname;
  // Request logs (stdout) go to /dev/null; the ready line comes on stderr.
  const { proc, ready } = await spawnReady<{ url: string; key: string; seeded_ms: number }>([...prof, script, ...args], 'stderr');
  const stop = async () => {
    proc.kill();
    await proc.exited;
  };
  return { ...ready, headers: { authorization: `Bearer ${ready.key}` }, stop };
}

/** `concurrency` keep-alive loops on `url` for `durationMs`; a response is good only with status `expected`. */
function load(url: string, init: RequestInit, expected: number, concurrency: number, durationMs: number) {
  return closedLoad({ urlOf: () => url, init, expected, concurrency, durationMs });
}

async function measure(url: string, init: RequestInit, expected: number, concurrency: number, cpuSeconds?: () => number) {
  await load(url, init, expected, concurrency, 2000); // warm-up
  const cpuBefore = cpuSeconds?.() ?? Number.NaN;
  const r = await load(url, init, expected, concurrency, seconds * 1000);
  /** The server's CPU per good answer, in ms. */
  const cpuMs = (((cpuSeconds?.() ?? Number.NaN) - cpuBefore) / Math.max(1, r.ok)) * 1000;
  log(
    `${init.method ?? 'GET'} ${url.replace(/^.*\/api\/v1/, '')} c=${concurrency}: ${fmt(r.rps)}/s p50 ${r.p50.toFixed(2)} ms p99 ${r.p99.toFixed(2)} ms, ${r.errors} errors${Number.isNaN(cpuMs) ? '' : `, server CPU ${cpuMs.toFixed(2)} ms each`}`,
  );
  return { ...r, cpuMs };
}

// 2. Issuing.
const issuing = await startService({});
const post = { method: 'POST', headers: { ...issuing.headers, 'content-type': 'application/json' }, body: JSON.stringify(INVOICE) };
const issued: [number, Result & { cpuMs: number }][] = [];
try {
  for (const c of [1, 8, 32]) issued.push([c, await measure(`${issuing.url}/cfdis`, post, 201, c, issuing.cpuSeconds)]);
} finally {
  await issuing.stop();
}

// 3. Listing: the first page against one `depth` pages in (cursor followed from the first page).
const listing = await startServer(['--seed', String(rows)]);
log(`seeded ${fmt(rows)} invoices in ${fmt(listing.seeded_ms)} ms`);
const first = `${listing.url}/cfdis?limit=100`;
let deep: string;
let listed: { first: Result; deep: Result };
try {
  const get = { headers: listing.headers };
  let cursor = ((await (await fetch(first, get)).json()) as any).pagination.next_cursor as string;
  for (let i = 1; i < depth; i++) cursor = ((await (await fetch(`${first}&cursor=${cursor}`, get)).json()) as any).pagination.next_cursor;
  deep = `${first}&cursor=${cursor}`;
  const check = (await (await fetch(deep, get)).json()) as any;
  if (check.data?.length !== 100) throw new Error(`deep page has ${check.data?.length} items`);
  listed = { first: await measure(first, get, 200, 8), deep: await measure(deep, get, 200, 8) };
} finally {
  await listing.stop();
}

// The report.
const ms = (n: number) => `${n.toFixed(2)} ms`;
const c8 = issued.find(([c]) => c === 8)![1];
const c1 = issued.find(([c]) => c === 1)![1];
const deepRatio = listed.deep.rps / listed.first.rps;
const lines = [
  `Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; ${seconds} s per run after 2 s warm-up`,
  '',
  `Service: src/index.ts, ${values.workers ? `WORKERS=${values.workers}` : 'default configuration (WORKERS unset)'}`,
  '',
  '| measurement | concurrency | throughput | mean | p50 | p99 | errors | note |',
  '|---|---:|---:|---:|---:|---:|---:|---|',
  `| node:crypto RSA-2048 SHA-256 sign, 1 KB, one thread | — | ${fmt(signPerSec)} sign/s | | | | | ceiling ${fmt(ceiling)} invoices/s on ${cores} cores (2 signatures each); two signatures ${ms(twoSignaturesMs)} |`,
  `| \`openssl speed -seconds 3 rsa2048\` | — | ${opensslSign === undefined ? 'skipped' : `${fmt(opensslSign)} sign/s`} | | | | | |`,
  ...issued.map(
    ([c, r]) =>
      `| POST /cfdis, 10 conceptos, sandbox | ${c} | ${fmt(r.rps)} invoices/s | ${ms(r.mean)} | ${ms(r.p50)} | ${ms(r.p99)} | ${errorsText(r)} | ${((r.rps / ceiling) * 100).toFixed(1)} % of ceiling${Number.isNaN(r.cpuMs) ? '' : `; server CPU ${ms(r.cpuMs)} per invoice (${(r.cpuMs / twoSignaturesMs).toFixed(2)}× two signatures)`} |`,
  ),
  `| GET /cfdis?limit=100, first page, ${fmt(rows)} rows | 8 | ${fmt(listed.first.rps)} req/s | ${ms(listed.first.mean)} | ${ms(listed.first.p50)} | ${ms(listed.first.p99)} | ${errorsText(listed.first)} | |`,
  `| GET /cfdis?limit=100, ${fmt(depth * 100)} rows deep | 8 | ${fmt(listed.deep.rps)} req/s | ${ms(listed.deep.mean)} | ${ms(listed.deep.p50)} | ${ms(listed.deep.p99)} | ${errorsText(listed.deep)} | ${(deepRatio * 100).toFixed(1)} % of first page |`,
  '',
  `POST at concurrency 8: ${((c8.rps / ceiling) * 100).toFixed(1)} % of the machine's ceiling (target ≥ 50 %) → ${c8.rps >= 0.5 * ceiling ? 'PASS' : 'FAIL'}; ` +
    `p99 ${(c8.p99 / c8.mean).toFixed(2)}× the mean (target ≤ 3×) → ${c8.p99 <= 3 * c8.mean ? 'PASS' : 'FAIL'}`,
  `POST at concurrency 1: p50 ${(c1.p50 / twoSignaturesMs).toFixed(2)}× the two signatures (target ≤ 2×) → ${c1.p50 <= 2 * twoSignaturesMs ? 'PASS' : 'FAIL'}`,
  `Deep page at ${(deepRatio * 100).toFixed(1)} % of the first page's req/s (target: about the same, ≥ 80 %) → ${deepRatio >= 0.8 ? 'PASS' : 'FAIL'}`,
];
console.log(lines.join('\n'));
if ([...issued.map(([, r]) => r), listed.first, listed.deep].some((r) => r.errors > 0)) process.exitCode = 1;
