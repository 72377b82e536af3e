import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Socket, TCPSocketListener } from 'bun';
import { closeDatabase, type Db } from '../../src/db/index.ts';
import { openPostgres } from '../../src/db/postgres/client.ts';
import { createTestApp, ingreso, issuer, READY, type TestApp } from '../helpers.ts';
import { POSTGRES, scratchDatabase } from '../postgres.ts';

/**
 * Found by tests/process/multi-instance.test.ts: while PostgreSQL restarts, requests answered 500. A database that
 * cannot be reached is an outage to wait out, like a full disk: 503 with Retry-After, so clients and load balancers
 * retry (with their Idempotency-Key) instead of treating it as a bug. The app reaches PostgreSQL through a TCP relay
 * this test cuts: open connections close, new ones are refused.
 */
describe.skipIf(!POSTGRES)('PostgreSQL unreachable', () => {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  type Relayed = { upstream?: Socket<{ client: Socket<Relayed> }>; pending: Uint8Array[] };
  let relay: TCPSocketListener<Relayed>;
  const open = new Set<Socket<unknown>>();
  let db: Db;
  let t: TestApp;

  beforeAll(async () => {
    scratch = await scratchDatabase();
    const target = new URL(scratch.url);
    relay = Bun.listen<Relayed>({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        async open(client) {
          client.data = { pending: [] };
          open.add(client);
          const upstream = await Bun.connect<{ client: Socket<Relayed> }>({
            hostname: target.hostname,
            port: Number(target.port),
            data: { client },
            socket: {
              data: (_, bytes) => void client.write(bytes),
              close: () => void client.end(),
              error: () => void client.end(),
            },
          });
          open.add(upstream);
          client.data.upstream = upstream;
          for (const bytes of client.data.pending.splice(0)) upstream.write(bytes);
        },
        data(client, bytes) {
          if (client.data.upstream) client.data.upstream.write(bytes);
          else client.data.pending.push(new Uint8Array(bytes));
        },
        close: (client) => void client.data.upstream?.end(),
      },
    });
    const url = new URL(scratch.url);
    url.port = String(relay.port);
    db = await openPostgres(url.toString(), { max: 2 });
    t = await createTestApp({ db });
  });
  afterAll(async () => {
    await t?.app.worker.stop();
    if (db) await closeDatabase(db).catch(() => {});
    relay?.stop(true);
    await scratch?.drop();
  }, 20_000);

  test('requests answer 503 with Retry-After, not 500', async () => {
    const { key } = await issuer(t, READY);
    expect((await t.call('POST', '/cfdis', { token: key, body: ingreso() })).status).toBe(201);

    relay.stop(true);
    for (const socket of open) socket.end();

    const list = await t.call('GET', '/cfdis', { token: key });
    expect(list.status).toBe(503);
    expect(list.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(list.json.error.details[0].field).toBe('database');
    const issue = await t.call('POST', '/cfdis', { token: key, body: ingreso() });
    expect(issue.status).toBe(503);
  });
});
