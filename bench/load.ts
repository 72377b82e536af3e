import { percentile } from './soak.ts';

export type LoadResult = { rps: number; ok: number; errors: number; statuses: Record<number, number>; mean: number; p50: number; p99: number };

/**
 * A closed loop: `concurrency` keep-alive clients for `durationMs`, each sending its next request to `urlOf(n)` (the
 * n-th request of the run) as soon as the last one answered; a response is good only with status `expected`.
 */
export async function closedLoad(o: {
  urlOf: (n: number) => string;
  /** The request, or the n-th request's (another tenant's key). */
  init: RequestInit | ((n: number) => RequestInit);
  expected: number;
  concurrency: number;
  durationMs: number;
}): Promise<LoadResult> {
  let ok = 0;
  let sent = 0;
  const statuses: Record<number, number> = {};
  const latencies: number[] = [];
  const end = performance.now() + o.durationMs;
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (performance.now() < end) {
        const n = sent++;
        const url = o.urlOf(n);
        const init = typeof o.init === 'function' ? o.init(n) : o.init;
        const t = performance.now();
        let status = 0; // a network error
        try {
          const res = await fetch(url, init);
          await res.arrayBuffer();
          status = res.status;
        } catch {}
        latencies.push(performance.now() - t);
        if (status === o.expected) ok++;
        else statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const errors = latencies.length - ok;
  const mean = latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length);
  return { rps: ok / (o.durationMs / 1000), ok, errors, statuses, mean, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

/** A report cell: `0`, or the count in bold with the statuses it was made of (0: a network error). */
export const errorsText = (r: LoadResult) =>
  r.errors === 0
    ? '0'
    : `**${r.errors}** (${Object.entries(r.statuses)
        .map(([s, n]) => `${s === '0' ? 'network' : s}: ${n}`)
        .join(', ')})`;
