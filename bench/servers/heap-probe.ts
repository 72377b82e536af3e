/**
 * The real server (src/index.ts) with a memory probe, for `bun bench/soak.ts --heap`: every second a line on stderr
 * `{"heap":…}` with JSC's heap size and the process's RSS; on SIGUSR2 a full garbage collection, then a line with
 * heap size, capacity, extra (native-backed) memory, object count and the 25 most numerous object types.
 */
import { heapSize, heapStats } from 'bun:jsc';

await import('../../src/index.ts');

const MiB = 1024 * 1024;
/** heapStats() walks the whole heap (slow on a big one): only after a forced GC; the per-second line reads heapSize(). */
function report(types: boolean) {
  const rss_mb = process.memoryUsage().rss / MiB;
  if (!types) return console.error(JSON.stringify({ heap: { heap_mb: heapSize() / MiB, rss_mb } }));
  const h = heapStats();
  const top = Object.entries(h.objectTypeCounts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25);
  console.error(
    JSON.stringify({
      heap: {
        heap_mb: h.heapSize / MiB,
        capacity_mb: h.heapCapacity / MiB,
        extra_mb: h.extraMemorySize / MiB,
        objects: h.objectCount,
        rss_mb,
        types: Object.fromEntries(top),
      },
    }),
  );
}
setInterval(() => report(false), 1000).unref();
process.on('SIGUSR2', () => {
  Bun.gc(true);
  report(true);
});
