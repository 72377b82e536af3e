/**
 * Gateway overhead: authenticated GET /api/v1/tenants/me with an API key through the whole chain, against a bare
 * Hono hello-world on Bun, same machine, same client, same concurrency. Each server runs in its own process(es);
 * this process is the load generator.
 *
 *   npm run bench:gateway                  # 5 rounds, 2 s warm-up + 5 s per run, concurrency 32, raw-socket client
 *   npm run bench:gateway -- --seconds 10 --rounds 7 --concurrency 64
 *   npm run bench:gateway -- --client fetch        # the fetch client the first measurements used
 *   npm run bench:gateway -- --workers 2           # both as 2 processes on one port: the hello-world with reusePort,
 *                                                  # the service as `npm start` runs it with WORKERS=2 (src/index.ts)
 *
 * Robust on a shared 2-core machine: the servers alternate, each round in the other order, and the verdict is the
 * median of the rounds' ratios (each a pair measured minutes apart at most). The default client writes requests on
 * raw sockets and costs a fraction of fetch's CPU per request, so both servers, not the client, set the pace; with
 * fetch the hello-world ran at the client's speed and the ratio moved with the CPU the client got. Each run also
 * reads the servers' and the client's CPU time: a server's CPU per request does not depend on how much CPU it got.
 */
import { parseArgs } from 'node:util';
import { spawnReady } from './servers/spawn.ts';
import { startService, treeCpuSeconds } from './service.ts';
import { socketLoad } from './socket-load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '5' },
    client: { type: 'string', default: 'socket' },
    workers: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const workers = Number(values.workers ?? 1);
const client = values.client === 'fetch' ? 'fetch' : 'socket';

interface Server {
  url: string;
  key?: string;
  procs: Bun.Subprocess[];
  /** For a server that is a tree of processes: their CPU seconds, and how to stop them. */
  cpuSeconds?: () => number;
  stop?: () => Promise<void>;
}

const dir = new URL('./servers/', import.meta.url).pathname;

/** The hello-world as `workers` processes sharing one port: the first picks it, the others join with reusePort. */
async function startHello(): Promise<Server> {
  const first = await spawnReady<{ url: string; port: number }>([`${dir}hello.ts`], 'stdout');
  const procs = [first.proc];
  for (let i = 1; i < workers; i++) procs.push((await spawnReady([`${dir}hello.ts`, String(first.ready.port)], 'stdout')).proc);
  return { url: first.ready.url, procs };
}

/**
 * Without --workers: the app in one process of its own (bench/servers/gateway.ts). With --workers N: the service
 * as `npm start` runs it, a supervisor and N workers (the rate limit's counters kept by the supervisor).
 */
async function startGateway(): Promise<Server> {
  if (values.workers) {
    const service = await startService({ WORKERS: String(workers) });
    return { url: `${service.url}/tenants/me`, key: service.key, procs: [], cpuSeconds: service.cpuSeconds, stop: service.stop };
  }
  // The gateway server prints its ready line on stderr (stdout carries its request logs).
  const { proc, ready } = await spawnReady<{ url: string; key: string }>([`${dir}gateway.ts`], 'stderr');
  return { ...ready, procs: [proc] };
}

const serverCpuSeconds = (server: Server) => server.cpuSeconds?.() ?? server.procs.reduce((s, p) => s + treeCpuSeconds(p.pid), 0);

async function fetchLoad(url: string, headers: Record<string, string>, durationMs: number) {
  let ok = 0;
  let failed = 0;
  const latencies: number[] = [];
  const end = performance.now() + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status === 200) ok++;
        else failed++;
      }
    }),
  );
  return { ok, failed, latencies };
}

const load = (url: string, headers: Record<string, string>, durationMs: number) =>
  client === 'socket' ? socketLoad({ url, headers, concurrency, durationMs }) : fetchLoad(url, headers, durationMs);

async function measure(start: () => Promise<Server>) {
  const server = await start();
  const headers: Record<string, string> = server.key ? { authorization: `Bearer ${server.key}` } : {};
  try {
    await load(server.url, headers, Number(values.warmup) * 1000);
    const serverCpu0 = serverCpuSeconds(server);
    const clientCpu0 = process.cpuUsage();
    const t0 = performance.now();
    const { ok, failed, latencies } = await load(server.url, headers, seconds * 1000);
    const elapsed = (performance.now() - t0) / 1000;
    const clientCpu = process.cpuUsage(clientCpu0);
    const serverCpu = serverCpuSeconds(server) - serverCpu0;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(2);
    return {
      rps: Math.round(ok / elapsed),
      failed,
      p50: pct(50),
      p99: pct(99),
      /** Server CPU per answered request, in µs: what the server costs, whatever share of the machine it got. */
      cpuUs: (serverCpu / Math.max(1, ok + failed)) * 1e6,
      serverCores: serverCpu / elapsed,
      clientCores: (clientCpu.user + clientCpu.system) / 1e6 / elapsed,
    };
  } finally {
    for (const proc of server.procs) proc.kill();
    await Promise.all(server.procs.map((p) => p.exited));
    await server.stop?.();
  }
}

type Run = Awaited<ReturnType<typeof measure>>;
const runs: { hello: Run; gateway: Run; ratio: number }[] = [];
const describe = (r: Run) =>
  `${String(r.rps).padStart(6)} req/s (server ${r.serverCores.toFixed(2)} cores, ${r.cpuUs.toFixed(1)} µs CPU/req; client ${r.clientCores.toFixed(2)} cores)`;
for (let i = 0; i < rounds; i++) {
  // Each round in the other order, so that neither server always runs after the other's load.
  let hello: Run;
  let gateway: Run;
  if (i % 2 === 0) {
    hello = await measure(startHello);
    gateway = await measure(startGateway);
  } else {
    gateway = await measure(startGateway);
    hello = await measure(startHello);
  }
  runs.push({ hello, gateway, ratio: gateway.rps / hello.rps });
  console.log(`round ${i + 1}: hello ${describe(hello)}; gateway ${describe(gateway)}; ratio ${((gateway.rps / hello.rps) * 100).toFixed(1)} %`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const middle = <T>(xs: T[], key: (x: T) => number) => [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)]!;
const hello = middle(
  runs.map((r) => r.hello),
  (r) => r.rps,
);
const gateway = middle(
  runs.map((r) => r.gateway),
  (r) => r.rps,
);
const ratio = median(runs.map((r) => r.ratio));
const cpuRatio = median(runs.map((r) => r.hello.cpuUs)) / median(runs.map((r) => r.gateway.cpuUs));
console.log(
  `medians of ${rounds} rounds; ${client} client, concurrency ${concurrency}, ${seconds} s per run after ${values.warmup} s warm-up, ` +
    `${workers} process(es) each (${values.workers ? 'the service: src/index.ts, WORKERS' : 'the app: bench/servers/gateway.ts'}), Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores`,
);
console.log(`bare Hono hello-world          ${describe(hello)}  p50 ${hello.p50} ms  p99 ${hello.p99} ms  (${hello.failed} non-200)`);
console.log(`GET /tenants/me via API key    ${describe(gateway)}  p50 ${gateway.p50} ms  p99 ${gateway.p99} ms  (${gateway.failed} non-200)`);
console.log(`server CPU per request: hello / gateway = ${(cpuRatio * 100).toFixed(1)} %`);
console.log(`ratio (median of the rounds' ratios) ${(ratio * 100).toFixed(1)} % (target ≥ 50 %) → ${ratio >= 0.5 ? 'PASS' : 'FAIL'}`);
if (runs.some((r) => r.gateway.failed > 0 || r.hello.failed > 0)) process.exitCode = 1;
