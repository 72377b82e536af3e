import { describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { type Db, withTransaction } from '../../src/db/index.ts';
import { cfdis } from '../../src/db/schema/index.ts';
import { createBackend } from '../../src/lib/backend.ts';
import { IDEMPOTENCY_LEASE_MS } from '../../src/lib/idempotency.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestApp, ingreso, issuer, READY, sharedTestDatabase, TEST_ENGINE, TEST_MASTER_KEY, until } from '../helpers.ts';

const t = await createTestApp({ webhookAllowPrivate: true }); // no DNS here to resolve the webhook's erp.example.com

describe('Idempotency-Key belongs to the credential that used it', () => {
  test("a VIEWER resending an ADMIN's POST /api-keys with the same key and body gets 403, not the ADMIN's secret", async () => {
    const admin = await issuer(t);
    const viewer = await admin.userWithRole('VIEWER');
    const headers = { 'idempotency-key': 'make-key-1' };
    const body = { name: 'ERP', environment: 'live' };
    const created = await t.call('POST', '/api-keys', { token: admin.token, body, headers });
    expect(created.status).toBe(201);
    expect(created.json.key).toStartWith('sk_live_');
    const replayedToViewer = await t.call('POST', '/api-keys', { token: viewer.token, body, headers });
    expect(replayedToViewer.status).toBe(403);
    expect(replayedToViewer.text).not.toContain(created.json.key);
    expect(replayedToViewer.headers.get('idempotent-replayed')).toBeNull();
    // The ADMIN's own retry still gets its answer back, secret included.
    const retried = await t.call('POST', '/api-keys', { token: admin.token, body, headers });
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.json.key).toBe(created.json.key);
  });

  test('a user whose role changed is checked again instead of being answered from before', async () => {
    const owner = await issuer(t);
    const second = await owner.userWithRole('ADMIN');
    const headers = { 'idempotency-key': 'make-key-2' };
    const body = { name: 'Shop', environment: 'test' };
    expect((await t.call('POST', '/api-keys', { token: second.token, body, headers })).status).toBe(201);
    expect((await t.call('PATCH', `/users/${second.id}`, { token: owner.token, body: { role: 'VIEWER' } })).status).toBe(200);
    const after = await t.call('POST', '/api-keys', { token: second.token, body, headers });
    expect(after.status).toBe(403);
  });

  test('another API key of the same tenant sending the same Idempotency-Key makes its own request; stored answers hold no secret in clear', async () => {
    const admin = await issuer(t);
    const k1 = await admin.createKey('test', 'one');
    const k2 = await admin.createKey('test', 'two');
    const headers = { 'idempotency-key': 'hook-1' };
    const body = { url: 'https://erp.example.com/hooks', events: ['cfdi.timbrado'] };
    const first = await t.call('POST', '/webhooks', { token: k1.key, body, headers });
    const second = await t.call('POST', '/webhooks', { token: k2.key, body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.json.id).not.toBe(first.json.id);
    expect(second.json.secret).not.toBe(first.json.secret);
    expect((await t.call('POST', '/webhooks', { token: k1.key, body, headers })).json.secret).toBe(first.json.secret);

    await t.call('POST', '/api-keys', { token: admin.token, body: { name: 'sealed', environment: 'live' }, headers: { 'idempotency-key': 'key-3' } });
    const rows = await t.query<{ body: Buffer }>(sql`select body from idempotency_keys where tenant_id = ${admin.tenant.id}`);
    expect(rows.length).toBe(3);
    for (const { body: stored } of rows) {
      const text = Buffer.from(stored).toString('latin1');
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain('sk_live_');
      expect(text).not.toContain('sk_test_');
    }
  });
});

// --- Several instances on one database --------------------------------------------------------------------------

const [dbA, dbB] = (await sharedTestDatabase(2)) as [Db, Db];
// Two instances waiting as in production (8 s), and a third whose short wait keeps the 409 cases quick.
const a = await createTestApp({ db: dbA });
const b = await createTestApp({ db: dbB });
const impatient = await createTestApp({ db: dbB, idempotencyWaitMs: 300 });
const invoices = (tenantId: string) => a.count(cfdis, eq(cfdis.tenantId, tenantId));
/**
 * Requests to both instances at once. On SQLite in one process they take turns instead: a connection waiting for the
 * file lock blocks the event loop the other connection needs to commit (tests/process/idempotency-instances.test.ts
 * runs two server processes on one file at once).
 */
async function atOnce<T>(requests: (() => Promise<T>)[]): Promise<T[]> {
  if (TEST_ENGINE === 'postgres') return Promise.all(requests.map((r) => r()));
  const out: T[] = [];
  for (const r of requests) out.push(await r());
  return out;
}
const claimOf = async (key: string) =>
  (
    await a.query<{ status: number; owner: string | null; resource_id: string | null }>(
      sql`select status, owner, resource_id from idempotency_keys where key = ${key}`,
    )
  )[0];

describe('Idempotency-Key across instances (two apps on one database)', () => {
  test.skipIf(TEST_ENGINE !== 'postgres')('the same key sent to both instances at the same moment issues one invoice; both answer it', async () => {
    const issuerA = await issuer(a, READY);
    for (const [i, scenario] of [undefined, 'pac_slow'].entries()) {
      const headers = { 'idempotency-key': `both-${i}`, ...(scenario ? { 'x-sandbox-scenario': scenario } : {}) };
      const [first, second] = await Promise.all([a, b].map((app) => app.call('POST', '/cfdis', { token: issuerA.key, body: ingreso(), headers })));
      // pac_slow: slower than the stamping budget, so the owner answers 202 and the other gets that answer replayed.
      const expected = scenario ? 202 : 201;
      expect([first!.status, second!.status]).toEqual([expected, expected]);
      expect(second!.json.id).toBe(first!.json.id);
      expect(await invoices(issuerA.tenant.id)).toBe(i + 1);
    }
  });

  test('a live claim held by another instance: the request waits, then answers 409 idempotency_key_in_use, or from the resource once one is bound', async () => {
    const issuerA = await issuer(a, READY);
    const headers = { 'idempotency-key': 'held-1' };
    // The claim another instance holds while its request runs (its request hash is the one this body gives).
    const done = await a.call('POST', '/cfdis', { token: issuerA.key, body: ingreso(), headers: { 'idempotency-key': 'template' } });
    expect(done.status).toBe(201);
    const lease = new Date(a.clock.now.getTime() + 60_000).toISOString();
    await a.exec(
      sql`insert into idempotency_keys (tenant_id, environment, actor, key, method, path, request_hash, status, owner, lease_until, headers, body, created_at)
          select tenant_id, environment, actor, 'held-1', method, path, request_hash, 0, 'inst_elsewhere', ${lease}, '{}', ${Buffer.alloc(0)}, ${a.clock.now.toISOString()}
          from idempotency_keys where key = 'template'`,
    );
    const busy = await impatient.call('POST', '/cfdis', { token: issuerA.key, body: ingreso(), headers });
    expect(busy.status).toBe(409);
    expect(busy.json.error.code).toBe('idempotency_key_in_use');
    expect(busy.json.error.details[0].field).toBe('idempotency-key');
    expect(await invoices(issuerA.tenant.id)).toBe(1);
    expect(await claimOf('held-1')).toEqual({ status: 0, owner: 'inst_elsewhere', resource_id: null });

    // The holder has created and bound its invoice but not answered yet: the waiter answers from that invoice.
    await a.exec(sql`update idempotency_keys set resource_id = ${done.json.id} where key = 'held-1'`);
    const fromResource = await impatient.call('POST', '/cfdis', { token: issuerA.key, body: ingreso(), headers });
    expect(fromResource.status).toBe(201);
    expect(fromResource.json.id).toBe(done.json.id);
    expect(await invoices(issuerA.tenant.id)).toBe(1);
    expect((await claimOf('held-1'))?.owner).toBe('inst_elsewhere'); // still the holder's to answer
  });

  test("a dead owner's claim (lease run out) is taken over: issued once when nothing was bound, answered from what was", async () => {
    const issuerA = await issuer(a, READY);
    await a.call('POST', '/cfdis', { token: issuerA.key, body: ingreso(), headers: { 'idempotency-key': 'template-dead' } });
    const expired = new Date(a.clock.now.getTime() - 1000).toISOString();
    for (const key of ['dead-unbound', 'dead-bound']) {
      await a.exec(
        sql`insert into idempotency_keys (tenant_id, environment, actor, key, method, path, request_hash, status, owner, lease_until, headers, body, created_at)
            select tenant_id, environment, actor, ${key}, method, path, request_hash, 0, 'inst_dead', ${expired}, '{}', ${Buffer.alloc(0)}, ${a.clock.now.toISOString()}
            from idempotency_keys where key = 'template-dead'`,
      );
    }
    const [template] = await a.query<{ resource_id: string }>(sql`select resource_id from idempotency_keys where key = 'template-dead'`);
    await a.exec(sql`update idempotency_keys set resource_id = ${template!.resource_id} where key = 'dead-bound'`);

    // Both instances at once: one takes each claim over, the other waits for its answer.
    const unbound = await atOnce(
      [a, b].map((app) => () => app.call('POST', '/cfdis', { token: issuerA.key, body: ingreso(), headers: { 'idempotency-key': 'dead-unbound' } })),
    );
    expect(unbound.map((r) => r.status)).toEqual([201, 201]);
    expect(unbound[1]!.json.id).toBe(unbound[0]!.json.id);
    expect(await invoices(issuerA.tenant.id)).toBe(2);
    const taken = await claimOf('dead-unbound');
    expect(taken).toMatchObject({ status: 201, resource_id: unbound[0]!.json.id });
    expect(taken?.owner).not.toBe('inst_dead');

    const bound = await b.call('POST', '/cfdis', { token: issuerA.key, body: ingreso(), headers: { 'idempotency-key': 'dead-bound' } });
    expect(bound.status).toBe(201);
    expect(bound.json.id).toBe(template!.resource_id);
    expect(await invoices(issuerA.tenant.id)).toBe(2);
    expect(await claimOf('dead-bound')).toMatchObject({ status: 201, resource_id: template!.resource_id });
  });

  test('an owner that stalled past its lease and comes back cannot bind: the instance that took over creates the one resource', async () => {
    const { tenant } = await issuer(a, READY);
    const actor = { type: 'api_key' as const, id: 'ak_stalled', role: 'ADMIN' as const, tenantId: tenant.id, environment: 'test' as const };
    const clocks = { a: new Date(), b: new Date() };
    const created: string[] = [];
    // A route that creates a row-less "resource" and binds it, once `proceed` lets it.
    const instance = (db: Db, name: 'a' | 'b', proceed: Promise<void>) => {
      const app = createBackend(
        { db, now: () => clocks[name], logger: createLogger('silent'), masterKey: TEST_MASTER_KEY, instanceId: `inst_${name}` },
        'invoices',
      );
      app.post('/api/v1/things', async (c) => {
        await proceed;
        const claim = c.get('idempotency')!;
        const id = claim.resumed ?? `thing_${name}`;
        if (!claim.resumed) {
          await withTransaction(db, { isolation: 'serializable' }, async (tx) => claim.bind(tx, id));
          created.push(id);
        }
        return c.json({ id }, 201);
      });
      return (key: string) =>
        app.request(
          '/api/v1/things',
          { method: 'POST', body: '{}', headers: { 'idempotency-key': key } },
          { gateway: { actor, requestId: '', clientAddress: '' } },
        );
    };
    let resumeA!: () => void;
    const sendA = instance(dbA, 'a', new Promise<void>((resolve) => (resumeA = resolve)));
    const sendB = instance(dbB, 'b', Promise.resolve());

    const stalled = sendA('stall-1');
    await until(async () => (await claimOf('stall-1'))?.owner === 'inst_a', "A's claim is written");
    expect(await claimOf('stall-1')).toMatchObject({ status: 0, owner: 'inst_a' });
    // B's clock is past A's lease: A looks dead to it, so B takes the claim over and creates the resource.
    clocks.b = new Date(clocks.a.getTime() + IDEMPOTENCY_LEASE_MS + 1000);
    const takeover = await sendB('stall-1');
    expect(takeover.status).toBe(201);
    expect(await takeover.json()).toEqual({ id: 'thing_b' });
    // A wakes up: its bind is refused, so nothing of it commits, and its answer does not replace B's.
    resumeA();
    const late = await stalled;
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: { code: string } }).error.code).toBe('idempotency_key_in_use');
    expect(created).toEqual(['thing_b']);
    expect(await claimOf('stall-1')).toEqual({ status: 201, owner: 'inst_b', resource_id: 'thing_b' });
    const retried = await sendA('stall-1');
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(await retried.json()).toEqual({ id: 'thing_b' });
  });
});

describe('a duplicate that gives up waiting on a create that committed and has not answered yet', () => {
  test('it answers the client that request made; for an API key 409, and the first answer keeps a working secret', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    // Every request with a key stops between its commit and its answer until the gate opens; duplicates wait 300 ms.
    const app = await createTestApp({ idempotencyWaitMs: 300, webhookAllowPrivate: true, holdBeforeAnswer: () => (held++, gate) });
    const admin = await issuer(app, { keys: ['test'] });
    const send = (path: string, body: unknown, token: string) => app.call('POST', path, { token, body, headers: { 'idempotency-key': `slow-${path}` } });
    const creates: [string, unknown, string][] = [
      ['/api-keys', { name: 'slow', environment: 'test' }, admin.token],
      ['/clients', { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' }, admin.key],
    ];
    const firsts = creates.map(([path, body, token]) => send(path, body, token));
    await until(() => held === creates.length, 'both creates committed and held');
    const [keyAgain, clientAgain] = await Promise.all(creates.map(([path, body, token]) => send(path, body, token)));
    // Replacing the API key's secret now would break the one the first request is about to show.
    expect(keyAgain!.status).toBe(409);
    expect(keyAgain!.json.error.code).toBe('idempotency_key_in_use');
    expect(clientAgain!.status).toBe(201);
    release();
    const [key, client] = await Promise.all(firsts);
    expect([key!.status, client!.status]).toEqual([201, 201]);
    expect(clientAgain!.json.id).toBe(client!.json.id);
    expect((await app.call('GET', '/cfdis', { token: key!.json.key })).status).toBe(200);
    expect((await app.call('GET', '/clients', { token: admin.key })).json.data.length).toBe(1);
  });
});
