import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_INVOICE } from '../../src/demo.ts';
import { issuer, serverTarget, TEST_ENGINE, until } from '../helpers.ts';
import { post, startServer, stopServer } from './server.ts';

/**
 * Graceful shutdown (issue 11): SIGTERM while a request is in flight. The request gets its answer, new connections
 * are refused, the database is closed cleanly (its WAL folded in and removed), and a restart resumes the queue.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-shutdown-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// SQLite only: checks the SQLite file and its WAL after the stop.
describe.skipIf(TEST_ENGINE !== 'sqlite')('graceful shutdown', () => {
  test('SIGTERM mid-request: the request is answered, new ones refused, the database closed; the restart stamps what was queued', async () => {
    const server = await startServer(dataDir);
    const logs: string[] = [];
    let id: string;
    let key: string;
    try {
      key = (await issuer(serverTarget(server.base), { email: 'stop@example.com', keys: ['test'], csd: true })).key;

      // The sandbox provider answers after the 5 s budget: the request is in flight for 5 s, then answers 202.
      const started = performance.now();
      const inFlight = post(server.base, '/cfdis', DEMO_INVOICE, key, { 'x-sandbox-scenario': 'pac_slow' });
      // In flight once its invoice is committed (en_cola, the answer still seconds away), however slow the machine.
      const watch = new Database(join(dataDir, 'cfdi.sqlite'), { readonly: true });
      try {
        await until(() => (watch.query('select count(*) as n from cfdis').get() as { n: number }).n === 1, 'the request is in flight');
      } finally {
        watch.close();
      }
      server.proc.kill('SIGTERM');
      const refused = () =>
        fetch(`${server.base}/health`).then(
          () => false,
          () => true,
        );
      await until(refused, 'new connections are refused'); // no longer accepting
      const res = await inFlight;
      expect(res.status).toBe(202);
      id = ((await res.json()) as any).id;
      expect(await server.proc.exited).toBe(0);
      expect(performance.now() - started).toBeLessThan(12_000); // bounded: the in-flight request, not the 10 s limit
    } finally {
      if (server.proc.exitCode === null) await stopServer(server.proc);
      logs.push(await new Response(server.proc.stderr).text());
    }
    expect(logs.join('')).toBe(''); // nothing went to stderr
    expect(existsSync(join(dataDir, 'cfdi.sqlite-wal'))).toBe(false); // closed, WAL checkpointed and removed

    const again = await startServer(dataDir);
    try {
      let cfdi: any;
      const deadline = Date.now() + 20_000;
      do {
        await Bun.sleep(200);
        cfdi = await (await fetch(`${again.base}/cfdis/${id}`, { headers: { authorization: `Bearer ${key}` } })).json();
      } while (cfdi.status !== 'vigente' && Date.now() < deadline);
      expect(cfdi.status).toBe('vigente');
      expect(cfdi.uuid).toMatch(/^[0-9A-F-]{36}$/);
    } finally {
      await stopServer(again.proc);
    }
    const db = new Database(join(dataDir, 'cfdi.sqlite'), { readonly: true });
    try {
      expect(db.query("select count(*) as n from jobs where status = 'running'").get()).toEqual({ n: 0 });
      expect(db.query('select count(distinct uuid) as n from cfdis where uuid is not null').get()).toEqual({ n: 1 });
      expect(db.query('pragma integrity_check').get()).toEqual({ integrity_check: 'ok' });
    } finally {
      db.close();
    }
  }, 60_000);
});

describe('SIGTERM at once', () => {
  test("while the start's scheduled tasks still run: they end before the database closes; exit 0 without an error line", async () => {
    const at = mkdtempSync(join(tmpdir(), 'cfdi-shutdown-early-'));
    try {
      const lines: string[] = [];
      const server = await startServer(at, {}, { onLog: (line) => lines.push(line) });
      await stopServer(server.proc); // exit code 0
      await until(() => lines.some((l) => l.includes('"msg":"stopped"')), 'the stopped line');
      // Closing the pool under a running task failed its next statement (PostgreSQL: CONNECTION_ENDED, logged as an
      // unreachable database) and held the exit for the whole of the pool's 5 s end timeout (normally: milliseconds).
      expect(lines.filter((l) => l.includes('"level":"error"'))).toEqual([]);
      const timeOf = (msg: string) => Date.parse(JSON.parse(lines.find((l) => l.includes(`"msg":"${msg}"`))!).time);
      expect(timeOf('stopped') - timeOf('shutting down')).toBeLessThan(4000);
    } finally {
      rmSync(at, { recursive: true, force: true });
    }
  });
});
