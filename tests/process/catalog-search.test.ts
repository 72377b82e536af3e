import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issuer, serverTarget, TEST_ENGINE } from '../helpers.ts';
import { startServer } from './server.ts';

/**
 * Issue 19, item 1: SQLite runs on the only JS thread, so a catalog search that runs long freezes the whole service
 * (`q=a` held it for minutes, /health answered 503). The broadest searches run at once against a real server while
 * /health is asked every 20 ms. The issue asks for /health within 500 ms; searches take turns, so it waits for one
 * search, not for the whole burst: 250 ms here (49 ms measured; 354–509 ms when the burst ran back to back). On
 * PostgreSQL each of /health's round trips to the database lets one more search run first (121 ms measured): the
 * issue's 500 ms there.
 */
const HEALTH_MS = TEST_ENGINE === 'postgres' ? 500 : 250;
const work = mkdtempSync(join(tmpdir(), 'cfdi-catalog-search-'));
let server: Awaited<ReturnType<typeof startServer>>;
let key = '';

beforeAll(async () => {
  server = await startServer(join(work, 'data')); // one server for the file: the first start loads the catalogs
  key = (await issuer(serverTarget(server.base), { email: 'search@example.com', keys: ['test'] })).key;
}, 60_000);

afterAll(async () => {
  // Not a graceful stop: a server frozen in a search (the failure this file catches) would only stop minutes later.
  server?.proc.kill('SIGKILL');
  await server?.proc.exited;
  rmSync(work, { recursive: true, force: true });
});

/** Status and milliseconds of one request; status 0 when it had no answer within `timeoutMs`. */
async function timed(url: string, timeoutMs: number, headers: Record<string, string> = {}) {
  const started = performance.now();
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return { status: res.status, ms: Math.round(performance.now() - started) };
  } catch {
    return { status: 0, ms: Math.round(performance.now() - started) };
  }
}

describe('catalog search under load', () => {
  test(`while q=a, q=para, every one-letter and the broadest two-letter queries run, /health answers 200 within ${HEALTH_MS} ms (or half the burst, on a busy machine) and every search within 5 s`, async () => {
    const queries = [...'abcdefghijklmnopqrstuvwxyz', 'para', 'de', 'co', 'se', 'en', 'con', 'servicio', 'de '.repeat(33).trim()];
    let searching = true;
    const health = (async () => {
      const answers: { status: number; ms: number }[] = [];
      while (searching) {
        answers.push(await timed(`${server.base}/health`, 2_000));
        await Bun.sleep(20);
      }
      return answers;
    })();
    const burstStarted = performance.now();
    const searches = await Promise.all(
      queries.map(async (q) => ({
        q,
        ...(await timed(`${server.base}/catalogos/productos-servicios?q=${encodeURIComponent(q)}&limit=100`, 5_000, { authorization: `Bearer ${key}` })),
      })),
    );
    const burstMs = performance.now() - burstStarted;
    searching = false;
    const checks = await health;
    console.log(
      JSON.stringify({
        health_max_ms: Math.max(...checks.map((h) => h.ms)),
        search_max_ms: Math.max(...searches.map((s) => s.ms)),
        burst_ms: Math.round(burstMs),
      }),
    );

    // A machine busy with other work (a second suite beside this one) slows the whole burst, so the bound scales with
    // it there: /health waiting for one search stays under half the burst; held for the whole burst, it does not.
    const healthMs = Math.max(HEALTH_MS, burstMs / 2);
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((h) => h.status !== 200 || h.ms >= healthMs)).toEqual([]);
    expect(searches.filter((s) => s.status !== 200)).toEqual([]); // each within its 5 s timeout
  }, 30_000);
});
