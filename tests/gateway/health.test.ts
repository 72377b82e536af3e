import { describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { openPostgres } from '../../src/db/postgres/client.ts';
import { closeDatabase, createTestApp, fillDatabase, smtpSink, TEST_ENGINE, type TestApp } from '../helpers.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { POSTGRES, scratchDatabase } from '../postgres.ts';
import { createPacRouter } from '../../src/pac/failover.ts';
import type { Pac } from '../../src/pac/types.ts';

describe('GET /health', () => {
  test('200 ok with database and scheduler up', async () => {
    const t = await createTestApp();
    const res = await t.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('ok');
    expect(res.json.info.database).toMatchObject({ status: 'up', engine: TEST_ENGINE, latency_ms: expect.any(Number) });
    expect(res.json.info.scheduler.status).toBe('up');
    expect(res.json.details.service.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  test('503 naming the scheduler when its heartbeat is stale', async () => {
    const t = await createTestApp({ heartbeat: { lastTickAt: () => Date.now() - 60_000, intervalMs: 5000 }, now: () => new Date() });
    const res = await t.call('GET', '/health');
    expect(res.status).toBe(503);
    expect(res.json.status).toBe('error');
    expect(res.json.error.scheduler.status).toBe('down');
    expect(res.json.info.database.status).toBe('up');
  });

  test('503 naming the database when it is gone', async () => {
    const t = await createTestApp();
    closeDatabase(t.db);
    const res = await t.call('GET', '/health');
    expect(res.status).toBe(503);
    expect(res.json.error.database).toMatchObject({ status: 'down', engine: TEST_ENGINE, message: expect.any(String) });
    expect(res.json.error.database.message).toBeTruthy();
  });

  // SQLite's: it reports the room SQLite has left (PostgreSQL's server watches its own disk).
  test.skipIf(TEST_ENGINE !== 'sqlite')(
    'the database check writes (at most once a second) and is down when the storage is full; liveness stays 200',
    async () => {
      const t = await createTestApp();
      const probe = async () => (await t.query<{ value: Buffer }>(sql`select value from settings where key = 'health_probe'`))[0]?.value.toString();
      const ok = await t.call('GET', '/health');
      expect(ok.status).toBe(200);
      expect(ok.json.info.database.free_bytes).toBeGreaterThan(64 * 1024 * 1024);
      expect(await probe()).toBe(t.clock.now.toISOString());

      const free = await fillDatabase(t.db);
      // Within the second, the last answer is repeated (no write).
      expect((await t.call('GET', '/health')).status).toBe(200);
      t.clock.advance(1000);
      const full = await t.call('GET', '/health');
      expect(full.status).toBe(503);
      expect(full.json.error.database).toMatchObject({
        status: 'down',
        message: expect.stringMatching(/^storage is full: 0 MiB left, at least 64 MiB needed$/),
      });
      expect(full.json.info.scheduler.status).toBe('up');
      const live = await t.call('GET', '/health/live');
      expect(live.status).toBe(200);
      expect(live.json).toMatchObject({ status: 'ok', error: null, info: { service: { status: 'up' } } });

      await free();
      t.clock.advance(1000);
      expect((await t.call('GET', '/health')).status).toBe(200);
      expect(await probe()).toBe(t.clock.now.toISOString());
    },
  );
});

/**
 * A TCP relay in front of the PostgreSQL server, to take the server away from a pool that has opened: `freeze()`
 * stops relaying (a hung server or network), `close()` drops every connection and refuses new ones (a stopped server).
 */
async function relayTo(target: URL) {
  const sockets = new Set<Socket>();
  let frozen = false;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
      if (frozen) s.pause();
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: url.toString(),
    freeze() {
      frozen = true;
      for (const s of sockets) s.pause();
    },
    resume() {
      frozen = false;
      for (const s of sockets) s.resume();
    },
    close() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

describe.skipIf(!POSTGRES)('GET /health on PostgreSQL', () => {
  test('reports the server up, then down (no answer within 2 s, never a hung probe; refused), then up again', async () => {
    const scratch = await scratchDatabase();
    const relay = await relayTo(new URL(scratch.url));
    const db = await openPostgres(relay.url, { max: 2 });
    try {
      const t = await createTestApp({ db });
      const health = async () => {
        t.clock.advance(1000);
        return t.call('GET', '/health');
      };
      const up = await health();
      expect(up.status).toBe(200);
      expect(up.json.info.database).toMatchObject({ status: 'up', engine: 'postgres', latency_ms: expect.any(Number) });

      relay.freeze();
      const hung = await health();
      expect(hung.status).toBe(503);
      expect(hung.json.status).toBe('error');
      expect(hung.json.error.database).toEqual({ status: 'down', engine: 'postgres', message: 'the database gave no answer within 2000 ms' });

      relay.resume();
      const back = await health();
      expect(back.status).toBe(200);
      expect(back.json.info.database.status).toBe('up');

      relay.close();
      const refused = await health();
      expect(refused.status).toBe(503);
      expect(refused.json.error.database).toMatchObject({ status: 'down', engine: 'postgres', message: expect.any(String) });
      expect(refused.json.info.scheduler.status).toBe('up');
    } finally {
      relay.close();
      await closeDatabase(db);
      await scratch.drop();
    }
  }, 30_000);
});

describe("GET /health: the SMTP server's last check", () => {
  /** Polls /health until details.smtp has `status`, or fails after 5 s: the check runs behind the probe. */
  async function smtpOf(t: TestApp, status: string) {
    const deadline = Date.now() + 5000;
    for (;;) {
      const res = await t.call('GET', '/health');
      expect(res.status).toBe(200); // email never makes the instance unready
      if (res.json.details.smtp.status === status || Date.now() > deadline) return res.json.details.smtp;
      await Bun.sleep(10);
    }
  }

  test('without SMTP_URL: not_configured, and /health is 200', async () => {
    const t = await createTestApp();
    const res = await t.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.json.details.smtp).toEqual({ status: 'not_configured' });
    expect(res.json.info.smtp).toBeUndefined();
  });

  test('checking, then ok with the time of the check; checked again only after a minute; unreachable once the server is gone; one log line per change', async () => {
    const sink = await smtpSink();
    const lines: any[] = [];
    const t = await createTestApp({ smtp: sink.smtp, logger: createLogger('info', (line) => lines.push(JSON.parse(line))) });
    const server = new URL(sink.smtp.url).host;
    const first = await t.call('GET', '/health');
    expect(first.json.details.smtp).toEqual({ status: 'checking', server });
    const ok = await smtpOf(t, 'ok');
    expect(ok).toEqual({ status: 'ok', server, checked_at: t.clock.now.toISOString() });
    expect(sink.logins).toEqual(['sink-user:sink pass']); // the check logs in as sending does

    // Within the minute the last answer is repeated: no new connection to the server.
    t.clock.advance(59_000);
    for (let i = 0; i < 5; i++) expect((await t.call('GET', '/health')).json.details.smtp).toEqual(ok);
    expect(sink.logins).toHaveLength(1);

    await sink.close();
    t.clock.advance(1000);
    // Past the minute: the last result at once, a new check behind it.
    expect((await t.call('GET', '/health')).json.details.smtp).toEqual(ok);
    const gone = await smtpOf(t, 'unreachable');
    expect(gone).toEqual({ status: 'unreachable', server, checked_at: t.clock.now.toISOString(), message: expect.stringContaining('ECONNREFUSED') });

    const smtpLines = lines.filter((l) => /^SMTP server/.test(l.msg)).map((l) => [l.level, l.msg, l.server]);
    expect(smtpLines).toEqual([
      ['info', 'SMTP server reachable: greeting ok', server],
      ['warn', 'SMTP server unreachable: CFDI emails wait in the queue and are retried', server],
    ]);
  });

  test('a server that accepts and never greets: /health answers at once with the last result (checking), not after the check', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((s) => {
      sockets.add(s);
      s.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const t = await createTestApp({ smtp: { url: `smtp://127.0.0.1:${port}`, from: 'facturas@example.com' } });
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const res = await t.call('GET', '/health');
        expect(performance.now() - started).toBeLessThan(1000);
        expect(res.json.details.smtp).toEqual({ status: 'checking', server: `127.0.0.1:${port}` });
      }
      // One check in flight, shared: one connection however many probes.
      const deadline = Date.now() + 5000;
      while (sockets.size === 0 && Date.now() < deadline) await Bun.sleep(10);
      expect(sockets.size).toBe(1);
    } finally {
      silent.close();
      for (const s of sockets) s.destroy();
    }
  });
});

describe("GET /health: the live PACs' circuits", () => {
  const down = async () => ({ ok: false as const, class: 'provider' as const, message: 'PAC unreachable: ECONNREFUSED' });
  const pac = (name: string, stamp: Pac['stamp']): Pac => ({
    name,
    stamp,
    cancel: () => Promise.reject(new Error('unused')),
    status: () => Promise.reject(new Error('unused')),
  });

  test('none configured: up with an empty list', async () => {
    const res = await (await createTestApp()).call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.json.details.pacs).toEqual({ status: 'up', live: [] });
  });

  test('up while one circuit is closed; down when every one is open, and /health stays 200', async () => {
    let swUp = true;
    const sw = pac('sw', async () => (swUp ? { ok: true, xml: '<cfdi/>', tfd: {} as never } : down()));
    const router = createPacRouter([pac('finkok', down), sw], {
      ambiguousWindowMs: 600_000,
      breaker: { failureThreshold: 1, openMs: 60_000 },
      now: () => new Date(),
    });
    const t = await createTestApp({ pacRouter: router });
    expect((await router.stamp('<x/>', { tenantId: 't' }, [])).pac).toBe('sw');
    const one = await t.call('GET', '/health');
    expect(one.json.details.pacs).toEqual({
      status: 'up',
      live: [
        { name: 'finkok', circuit: 'open' },
        { name: 'sw', circuit: 'closed' },
      ],
    });
    swUp = false;
    await router.stamp('<y/>', { tenantId: 't' }, []);
    const res = await t.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('ok');
    expect(res.json.details.pacs).toEqual({
      status: 'down',
      message: "every live PAC's circuit is open: live invoices wait in the queue",
      live: [
        { name: 'finkok', circuit: 'open' },
        { name: 'sw', circuit: 'open' },
      ],
    });
  });
});
