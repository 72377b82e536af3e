import { describe, expect, test } from 'bun:test';
import { runSoak } from '../../bench/soak.ts';
import { TEST_ENGINE } from '../helpers.ts';

/**
 * Acceptance (issue 11): the soak of bench/soak.ts, shortened — 30 s with CI set (120 s until the PAC chaos test took the time), 20 s otherwise, SOAK_SECONDS to
 * choose; SOAK_RATE requests per second (default 50). The real server process, two tenants, open-loop mixed traffic;
 * the full 10-minute figures are in docs/benchmarks.md.
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? (process.env.CI ? 30 : 20));
const RATE = Number(process.env.SOAK_RATE ?? 50);

// SQLite only: it reads the SQLite file (integrity, WAL size); on PostgreSQL, multi-instance.test.ts carries the load.
describe.skipIf(TEST_ENGINE !== 'sqlite')('soak', () => {
  test(
    `${SECONDS} s of mixed traffic at ${RATE} req/s: no errors, nothing lost, webhooks delivered, memory and WAL bounded`,
    async () => {
      // heap: the server runs through bench/servers/heap-probe.ts (src/index.ts plus a forced-GC heap census on SIGUSR2).
      const s = await runSoak({ seconds: SECONDS, rate: RATE, sampleSeconds: SECONDS >= 60 ? 10 : 5, heap: true, print: (line) => console.log(line) });
      const { windows: _, ...rest } = s;
      const heap = s.heap && {
        warm_mb: s.heap.warm.heap_mb,
        after_mb: s.heap.after.heap_mb,
        warm_objects: s.heap.warm.objects,
        after_objects: s.heap.after.objects,
        grew: s.heap.grew_since_warm,
      };
      console.log(JSON.stringify({ ...rest, heap, by_op: undefined, server_log: { ...s.server_log, samples: s.server_log.samples.slice(0, 3) } }));

      // Every request answered as expected: no 5xx, no unexpected status, no network error.
      expect({ errors: s.errors, samples: s.error_samples }).toEqual({ errors: 0, samples: [] });
      expect(s.server_log.error).toBe(0);
      expect(s.requests).toBeGreaterThanOrEqual(SECONDS * RATE * 0.95);

      // Every 201/202 exists and ends vigente (cancelado when we cancelled it), one UUID each, nothing else written.
      const c = s.checks;
      expect(c.integrity).toBe('ok');
      expect(c.missing).toEqual([]);
      expect(c.wrong_status).toEqual([]);
      expect(c.unacknowledged).toBe(0);
      expect(c.duplicate_uuids).toBe(0);
      expect(c.timbrado_not_once).toBe(0);
      expect(c.jobs_not_done).toBe(0);
      expect(c.jobs_failed).toBe(0);
      expect(s.invoices.queued_202).toBeGreaterThan(0);
      expect(s.invoices.cancelled).toBeGreaterThan(0);

      // Webhooks: one cfdi.timbrado per invoice, one cfdi.encolado per 202, one cfdi.cancelado per cancellation; every
      // one delivered, seen by the receiver, signature valid.
      const expected = s.invoices.stamped_201 + s.invoices.queued_202 * 2 + s.invoices.cancelled;
      expect(s.webhooks.events).toBe(expected);
      expect(s.webhooks.received_unique).toBeGreaterThanOrEqual(expected);
      expect(c.events_without_delivery).toBe(0);
      expect(c.deliveries_not_delivered).toBe(0);
      expect(c.deliveries_not_received).toBe(0);
      expect(s.webhooks.bad_signatures).toBe(0);

      // Memory. The first invoice parses the SAT catalogs (about +220 MiB of JS heap, +300 MiB RSS, by design), so both
      // figures are compared from warm-up on (a quarter of the run, at most 60 s). The JS heap after a forced full GC
      // is the leak detector: measured flat (−1.6 MiB over 4,500 requests after warm-up in the 120 s run, ±2 MiB run to
      // run), so +6 MiB catches a retained object of 5 KiB per invoice (one stamped XML each) or 1.4 KiB per request.
      // RSS follows lazy garbage collection (a 520–700 MiB sawtooth in the 10-minute run; 1.13× warm after 120 s), so
      // its bound only catches gross leaks.
      expect(s.heap!.after.heap_mb).toBeLessThanOrEqual(s.heap!.warm.heap_mb + 6);
      expect(s.rss_mb.end).toBeLessThanOrEqual(s.rss_mb.warm * 1.5);
      // WAL: checkpoints keep it near SQLite's 1,000-page autocheckpoint (4 MiB); a starved checkpoint grows it without bound.
      expect(s.wal_mb.max).toBeLessThanOrEqual(32);
      expect(s.exit_code).toBe(0);
    },
    (SECONDS + 240) * 1000,
  );
});
