/**
 * Gateway overhead: authenticated GET /api/v1/tenants/me with an API key through the whole chain, against a bare
 * Hono hello-world on Bun, same machine, same client, same concurrency. Each server runs in its own process;
 * this process is the load generator (keep-alive fetch, N concurrent loops).
 *
 *   npm run bench                      # defaults: 3 rounds, 10 s per run after 2 s warm-up, concurrency 32
 *   npm run bench -- --seconds 20 --concurrency 64 --rounds 5
 */
import { parseArgs } from 'node:util';
import { spawnReady } from './servers/spawn.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, concurrency: { type: 'string', default: '32' }, rounds: { type: 'string', default: '3' } },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);

async function startServer(script: string) {
  // The hello server prints its ready line on stdout; the gateway server on stderr (stdout carries its request logs).
  const { proc, ready } = await spawnReady<{ url: string; key?: string }>([script], script.includes('hello') ? 'stdout' : 'stderr');
  return { proc, ...ready };
}

async function load(url: string, headers: Record<string, string>, durationMs: number) {
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
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(2);
  return { rps: Math.round(ok / (durationMs / 1000)), ok, failed, p50: pct(50), p99: pct(99) };
}

async function measure(script: string) {
  const server = await startServer(script);
  const headers: Record<string, string> = server.key ? { authorization: `Bearer ${server.key}` } : {};
  try {
    await load(server.url, headers, 2000); // warm-up
    return await load(server.url, headers, seconds * 1000);
  } finally {
    server.proc.kill();
    await server.proc.exited;
  }
}

// Alternate the two servers for several rounds and report the medians: a shared 2-core machine is noisy.
const dir = new URL('./servers/', import.meta.url).pathname;
const runs: { hello: Awaited<ReturnType<typeof measure>>; gateway: Awaited<ReturnType<typeof measure>> }[] = [];
for (let i = 0; i < rounds; i++) {
  const h = await measure(`${dir}hello.ts`);
  const g = await measure(`${dir}gateway.ts`);
  runs.push({ hello: h, gateway: g });
  console.log(`round ${i + 1}: hello ${h.rps} req/s, gateway ${g.rps} req/s, ratio ${((g.rps / h.rps) * 100).toFixed(1)} %`);
}
const median = <T>(xs: T[], key: (x: T) => number) => [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)]!;
const hello = median(
  runs.map((r) => r.hello),
  (r) => r.rps,
);
const gateway = median(
  runs.map((r) => r.gateway),
  (r) => r.rps,
);
const ratio = gateway.rps / hello.rps;
console.log(`medians of ${rounds} rounds; concurrency ${concurrency}, ${seconds} s per run, Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores`);
console.log(`bare Hono hello-world          ${String(hello.rps).padStart(7)} req/s  p50 ${hello.p50} ms  p99 ${hello.p99} ms  (${hello.failed} non-200)`);
console.log(
  `GET /tenants/me via API key    ${String(gateway.rps).padStart(7)} req/s  p50 ${gateway.p50} ms  p99 ${gateway.p99} ms  (${gateway.failed} non-200)`,
);
console.log(`ratio ${(ratio * 100).toFixed(1)} % (target ≥ 50 %) → ${ratio >= 0.5 ? 'PASS' : 'FAIL'}`);
if (runs.some((r) => r.gateway.failed > 0 || r.hello.failed > 0)) process.exitCode = 1;
