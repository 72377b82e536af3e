/**
 * A/B of issuing latency across checkouts: POST /api/v1/cfdis at concurrency 1 (2 s warm-up + 6 s), one server at a
 * time (each tree's bench/servers/cfdis.ts), trees alternating, three rounds. For a change whose effect is smaller
 * than the run-to-run drift of the full bench/cfdis.ts.
 *
 *   bun bench/ab-post.ts /path/to/checkout-a /path/to/checkout-b …   (each with its node_modules)
 */
import { INVOICE } from './invoice.ts';
import { spawnReady } from './servers/spawn.ts';

const trees = process.argv.slice(2);
if (trees.length === 0) throw new Error('usage: bun bench/ab-post.ts <checkout> <checkout> …');
const results = new Map<string, number[]>();

async function rate(url: string, init: RequestInit, ms: number): Promise<number> {
  let n = 0;
  for (const end = performance.now() + ms; performance.now() < end; n++) {
    const res = await fetch(url, init);
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`POST /cfdis answered ${res.status}`);
  }
  return n / (ms / 1000);
}

for (let round = 1; round <= 3; round++) {
  for (const tree of trees) {
    const { proc, ready } = await spawnReady<{ url: string; key: string }>([`${tree}/bench/servers/cfdis.ts`], 'stderr');
    try {
      const init = { method: 'POST', headers: { authorization: `Bearer ${ready.key}`, 'content-type': 'application/json' }, body: JSON.stringify(INVOICE) };
      await rate(`${ready.url}/cfdis`, init, 2000);
      const rps = Math.round(await rate(`${ready.url}/cfdis`, init, 6000));
      results.set(tree, [...(results.get(tree) ?? []), rps]);
      console.error(`round ${round} ${tree}: ${rps} invoices/s`);
    } finally {
      proc.kill();
      await proc.exited;
    }
  }
}
for (const [tree, runs] of results) console.log(`${tree}: ${runs.join(' / ')} invoices/s, mean ${Math.round(runs.reduce((a, b) => a + b, 0) / runs.length)}`);
