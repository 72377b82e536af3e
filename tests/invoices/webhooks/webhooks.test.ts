import { afterAll, describe, expect, test } from 'bun:test';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { recordEvent } from '../../../src/invoices/events.ts';
import { announceExpiredReceipts } from '../../../src/invoices/receipts/service.ts';
import { concepto, createTestApp, ICV, ingreso, type Issuer, issuer, TENANTS, until } from '../../helpers.ts';
import { withTransaction } from '../../../src/db/index.ts';

/** A real HTTP receiver on loopback whose answers the test scripts. */
interface Received {
  headers: Headers;
  raw: string;
}
function receiver() {
  const got: Received[] = [];
  const state = { answers: [] as (number | 'hang' | 'redirect')[], fallback: 200 as number };
  const server = Bun.serve({
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      got.push({ headers: req.headers, raw: await req.text() });
      const answer = state.answers.shift() ?? state.fallback;
      if (answer === 'hang') {
        await Bun.sleep(12_000);
        return new Response('late');
      }
      if (answer === 'redirect') return new Response(null, { status: 302, headers: { location: 'http://127.0.0.1:1/' } });
      return new Response(answer >= 400 ? `error ${answer}` : 'ok', { status: answer });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/hook`, got, state, stop: () => server.stop(true) };
}
const receivers: ReturnType<typeof receiver>[] = [];
const newReceiver = () => {
  const r = receiver();
  receivers.push(r);
  return r;
};
afterAll(() => receivers.forEach((r) => r.stop()));

const invoice = ingreso();

/** An app whose webhooks may target the loopback receivers (or, with `allowPrivate: false`, may not). */
async function setup(schedule = Array(20).fill(0), { allowPrivate = true, wakeOnEnqueue = true } = {}) {
  const t = await createTestApp({ webhookRetrySchedule: schedule, webhookAllowPrivate: allowPrivate, wakeOnEnqueue });
  const reg = await issuer(t, { keys: ['test', 'live'], csd: true });
  const { key, live } = reg;
  const hook = async (url: string, events = ['cfdi.timbrado'], token = key) => {
    const res = await t.call('POST', '/webhooks', { token, body: { url, events } });
    if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
    return res.json as { id: string; secret: string };
  };
  const issue = async () => (await t.call('POST', '/cfdis', { token: key, body: invoice })).json;
  const deliver = () => t.app.worker.drain();
  return { t, reg, key, live, hook, issue, deliver };
}

const verifyFc = (secret: string, r: Received) => {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(r.raw).digest('hex')}`);
  const given = Buffer.from(r.headers.get('x-fc-signature') ?? '');
  return expected.length === given.length && timingSafeEqual(expected, given);
};
const verifyStandard = (secret: string, r: Received) => {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = `${r.headers.get('webhook-id')}.${r.headers.get('webhook-timestamp')}.${r.raw}`;
  const expected = `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  return (r.headers.get('webhook-signature') ?? '').split(' ').includes(expected);
};

describe('webhooks', () => {
  test('stamping delivers cfdi.timbrado, signed both ways, with the spec payload', async () => {
    const { hook, issue, deliver } = await setup();
    const r = newReceiver();
    const h = await hook(r.url);
    expect(h.secret).toMatch(/^whsec_/);
    const cfdi = await issue();
    await deliver();
    expect(r.got).toHaveLength(1);
    const got = r.got[0]!;
    const body = JSON.parse(got.raw);
    expect(Object.keys(body).sort()).toEqual(['created_at', 'data', 'event', 'tenant_id']);
    expect(body.event).toBe('cfdi.timbrado');
    expect(body.data).toEqual({ cfdi_id: cfdi.id, uuid: cfdi.uuid, receipt_id: null, external_id: null, metadata: {} });
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(got.headers.get('content-type')).toBe('application/json');
    expect(got.headers.get('x-fc-event')).toBe('cfdi.timbrado');
    expect(got.headers.get('x-fc-timestamp')).toMatch(/^\d{10}$/);
    expect(got.headers.get('x-fc-delivery-id')).toBe(got.headers.get('webhook-id'));
    expect(verifyFc(h.secret, got)).toBe(true);
    expect(verifyStandard(h.secret, got)).toBe(true);
    expect(verifyFc(h.secret + 'x', got)).toBe(false);
  });

  test('receipts: receipt.created, receipt.cancelled, receipt.invoiced (self and global) with cfdi.timbrado naming the receipt, receipt.expired once', async () => {
    // Delivered only when drained: the app's own worker may hold a delivery when a drain returns (a CI failure).
    const { t, key, hook, issue, deliver } = await setup(undefined, { wakeOnEnqueue: false });
    const r = newReceiver();
    await hook(r.url, ['receipt.created', 'receipt.invoiced', 'receipt.cancelled', 'receipt.expired', 'cfdi.timbrado']);
    const events = async () => {
      await deliver();
      const got = r.got.splice(0).map((g) => JSON.parse(g.raw) as { event: string; data: Record<string, unknown> });
      // Deliveries run side by side, so they arrive in any order: by event, then by the receipt's folio.
      return got.sort((a, b) => a.event.localeCompare(b.event) || Number(a.data.folio ?? 0) - Number(b.data.folio ?? 0));
    };
    const create = async () => (await t.call('POST', '/receipts', { token: key, body: { forma_pago: '01', conceptos: [concepto()] } })).json;

    const sold = await create();
    const returned = await create();
    expect((await t.call('POST', `/receipts/${returned.id}/cancel`, { token: key })).status).toBe(200);
    const ticket = { folio: sold.folio, fecha: sold.fecha, total: 116, expires_at: sold.expires_at };
    expect(await events()).toEqual([
      {
        event: 'receipt.cancelled',
        tenant_id: expect.any(String),
        created_at: expect.any(String),
        data: expect.objectContaining({ receipt_id: returned.id, status: 'cancelled' }),
      },
      { event: 'receipt.created', tenant_id: expect.any(String), created_at: expect.any(String), data: { receipt_id: sold.id, status: 'open', ...ticket } },
      { event: 'receipt.created', tenant_id: expect.any(String), created_at: expect.any(String), data: expect.objectContaining({ receipt_id: returned.id }) },
    ] as never);

    // Invoiced by its customer: the CFDI names its receipt, in its event and on GET.
    const own = await t.call('POST', `/receipts/${sold.id}/invoice`, { token: key, body: { receptor: ICV } });
    expect(own.status).toBe(201);
    const invoiced = await events();
    expect(invoiced.map((e) => e.event)).toEqual(['cfdi.timbrado', 'receipt.invoiced']);
    expect(invoiced[0]!.data).toMatchObject({ cfdi_id: own.json.id, uuid: own.json.uuid, receipt_id: sold.id });
    expect(invoiced[1]!.data).toEqual({ receipt_id: sold.id, ...ticket, status: 'invoiced', cfdi_id: own.json.id, uuid: own.json.uuid, invoiced_by: 'self' });
    expect((await t.call('GET', `/cfdis/${own.json.id}`, { token: key })).json.receipt_id).toBe(sold.id);

    // A global invoice: one receipt.invoiced per receipt it takes; the CFDI itself names none (GET /receipts?cfdi_id= lists them).
    const left = await create();
    const day = left.fecha.slice(0, 10);
    const global = await t.call('POST', '/receipts/global-invoice', { token: key, body: { periodicidad: '01', desde: day, hasta: day } });
    expect(global.status).toBe(201);
    const covered = await events();
    expect(covered.map((e) => [e.event, e.data.receipt_id])).toEqual([
      ['cfdi.timbrado', null],
      ['receipt.created', left.id],
      ['receipt.invoiced', left.id],
    ]);
    expect(covered[2]!.data).toMatchObject({ cfdi_id: global.json.id, invoiced_by: 'global' });
    expect((await t.call('GET', `/cfdis/${global.json.id}`, { token: key })).json.receipt_id).toBeNull();
    expect((await t.call('GET', `/receipts?cfdi_id=${global.json.id}`, { token: key })).json.data.map((x: { id: string }) => x.id)).toEqual([left.id]);
    expect((await t.call('GET', `/cfdis/${(await issue()).id}`, { token: key })).json.receipt_id).toBeNull(); // a CFDI of no receipt
    await events();

    // Past its deadline an open receipt is announced once, however many sweeps run; invoiced or cancelled ones never.
    const late = await create();
    await events();
    expect(await announceExpiredReceipts(t.db, t.clock.now)).toEqual({ expired: 0 });
    t.clock.advance(Date.parse(late.expires_at) - t.clock.now.getTime() + 1000);
    expect(await announceExpiredReceipts(t.db, t.clock.now)).toEqual({ expired: 1 });
    expect(await announceExpiredReceipts(t.db, t.clock.now)).toEqual({ expired: 0 });
    expect(await events()).toEqual([
      {
        event: 'receipt.expired',
        tenant_id: expect.any(String),
        created_at: expect.any(String),
        data: expect.objectContaining({ receipt_id: late.id, status: 'open' }),
      },
    ] as never);
  });

  test('an app stepped by hand (wakeOnEnqueue: false) runs a retry that falls due in drain() only, never in the background', async () => {
    const t = await createTestApp({ wakeOnEnqueue: false, webhookRetrySchedule: [0, 1], webhookAllowPrivate: true });
    const { key } = await issuer(t, { keys: ['test'], csd: true });
    const r = newReceiver();
    r.state.answers = [500];
    expect((await t.call('POST', '/webhooks', { token: key, body: { url: r.url, events: ['cfdi.timbrado'] } })).status).toBe(201);
    expect((await t.call('POST', '/cfdis', { token: key, body: invoice })).status).toBe(201);
    await t.app.worker.drain(); // the first attempt fails: the retry is due 1 s (±10 %) later
    expect(r.got).toHaveLength(1);
    t.clock.advance(2000);
    // An absence, so only a wait shows it: past the 1.1 s after which a worker's own timer would run that retry.
    await Bun.sleep(2000);
    expect(r.got).toHaveLength(1);
    await t.app.worker.drain();
    expect(r.got).toHaveLength(2);
  });

  test('fails twice then succeeds: three attempts, one delivery id, history with codes and bodies', async () => {
    const { t, key, hook, issue, deliver } = await setup();
    const r = newReceiver();
    r.state.answers = [500, 503, 200];
    const h = await hook(r.url);
    await issue();
    await deliver();
    expect(r.got).toHaveLength(3);
    expect(new Set(r.got.map((g) => g.headers.get('x-fc-delivery-id'))).size).toBe(1);
    expect(new Set(r.got.map((g) => g.raw)).size).toBe(1);
    const list = await t.call('GET', `/webhooks/${h.id}/deliveries`, { token: key });
    const d = list.json.data[0];
    expect(d).toMatchObject({ state: 'entregado', attempts: 3, status_code: 200, response_body: 'ok' });
    expect(d.history.map((a: any) => [a.attempt, a.status_code, a.response_body])).toEqual([
      [1, 500, 'error 500'],
      [2, 503, 'error 503'],
      [3, 200, 'ok'],
    ]);
    expect((await t.call('GET', `/webhooks/${h.id}`, { token: key })).json.consecutive_failures).toBe(0);
  });

  test("cfdi_id: only the deliveries of that CFDI's events; a malformed id is 400 naming it", async () => {
    const { t, key, hook, issue, deliver } = await setup();
    const r = newReceiver();
    const h = await hook(r.url, ['*']);
    const first = await issue();
    const second = await issue();
    await deliver();
    const list = async (query: string) => {
      const res = await t.call('GET', `/webhooks/${h.id}/deliveries?${query}`, { token: key });
      expect(res.status).toBe(200);
      return res.json.data as { id: string; event: string }[];
    };
    const all = await list('limit=100');
    const ofFirst = await list(`cfdi_id=${first.id}`);
    expect(ofFirst.length).toBeGreaterThan(0);
    expect(ofFirst.map((d) => d.event)).toContain('cfdi.timbrado');
    const ofSecond = await list(`cfdi_id=${second.id}`);
    expect(ofSecond.length).toBeGreaterThan(0);
    expect(ofFirst.filter((d) => ofSecond.some((x) => x.id === d.id))).toEqual([]);
    expect(ofFirst.length + ofSecond.length).toBeLessThanOrEqual(all.length);
    expect(await list('cfdi_id=cfdi_00000000000000000000000000')).toEqual([]);
    const bad = await t.call('GET', `/webhooks/${h.id}/deliveries?cfdi_id=${encodeURIComponent('%')}`, { token: key });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].field).toBe('query.cfdi_id');
  });

  test('always failing: paused after 10 consecutive failures, nothing more arrives; PATCH ACTIVO resumes', async () => {
    const { t, key, hook, issue, deliver } = await setup();
    const r = newReceiver();
    r.state.fallback = 500;
    const h = await hook(r.url);
    await issue();
    await deliver();
    expect(r.got).toHaveLength(10);
    const paused = await t.call('GET', `/webhooks/${h.id}`, { token: key });
    expect(paused.json).toMatchObject({ estado: 'PAUSADO', consecutive_failures: 10 });
    await issue(); // a new event while paused waits
    await deliver();
    const test = await t.call('POST', `/webhooks/${h.id}/test`, { token: key }); // and nothing is sent on demand either
    expect(test.status).toBe(409);
    expect(test.json.error.details).toEqual([{ field: 'estado', issue: expect.stringContaining('PAUSADO') }]);
    expect(r.got).toHaveLength(10);
    r.state.fallback = 200;
    const resumed = await t.call('PATCH', `/webhooks/${h.id}`, { token: key, body: { estado: 'ACTIVO' } });
    expect(resumed.json).toMatchObject({ estado: 'ACTIVO', consecutive_failures: 0 });
    await deliver();
    expect(r.got).toHaveLength(12);
    const states = (await t.call('GET', `/webhooks/${h.id}/deliveries`, { token: key })).json.data.map((d: any) => d.state);
    expect(states).toEqual(['entregado', 'entregado']);
  });

  test('a 3xx is a failure (redirects are not followed); 410 disables the webhook', async () => {
    const { t, key, hook, issue, deliver } = await setup();
    const r = newReceiver();
    r.state.answers = ['redirect', 410];
    const h = await hook(r.url);
    await issue();
    await deliver();
    expect(r.got).toHaveLength(2);
    const d = (await t.call('GET', `/webhooks/${h.id}/deliveries`, { token: key })).json.data[0];
    expect(d.history.map((a: any) => a.status_code)).toEqual([302, 410]);
    expect(d.state).toBe('fallido');
    expect((await t.call('GET', `/webhooks/${h.id}`, { token: key })).json.estado).toBe('DESACTIVADO');
  });

  test('a receiver that hangs is cut at 10 s and counted as a failure', async () => {
    const { t, key, hook, issue, deliver } = await setup();
    const r = newReceiver();
    r.state.answers = ['hang', 200];
    const h = await hook(r.url);
    await issue();
    const started = Date.now();
    await deliver();
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
    const d = (await t.call('GET', `/webhooks/${h.id}/deliveries`, { token: key })).json.data[0];
    expect(d.history[0]).toMatchObject({ status_code: null, error: 'no answer within 10 s' });
    expect(d.state).toBe('entregado');
  }, 30_000);

  test('the secret is shown once; another tenant cannot see, test, patch or delete (404); events never cross tenants or environments', async () => {
    const a = await setup();
    const b = await setup();
    const ra = newReceiver();
    const rb = newReceiver();
    const rLive = newReceiver();
    const ha = await a.hook(ra.url, ['*']);
    await b.hook(rb.url, ['*']);
    const list = await a.t.call('GET', '/webhooks', { token: a.key });
    expect(list.json.data[0]).not.toHaveProperty('secret');
    expect(list.text).not.toContain(ha.secret);
    for (const [method, path] of [
      ['GET', `/webhooks/${ha.id}`],
      ['POST', `/webhooks/${ha.id}/test`],
      ['PATCH', `/webhooks/${ha.id}`],
      ['DELETE', `/webhooks/${ha.id}`],
      ['GET', `/webhooks/${ha.id}/deliveries`],
    ] as const) {
      const res = await b.t.call(method, path, { token: b.key, body: method === 'PATCH' ? { estado: 'PAUSADO' } : undefined });
      expect(res.status).toBe(404);
    }
    // Same app for environment isolation: a live webhook of tenant A never gets test events.
    const liveApp = await createTestApp({ webhookAllowPrivate: true, webhookRetrySchedule: [0] });
    const { key: testKey, live: liveKey } = await issuer(liveApp, { keys: ['test', 'live'], csd: true });
    expect((await liveApp.call('POST', '/webhooks', { token: liveKey, body: { url: rLive.url, events: ['*'] } })).status).toBe(201);
    expect((await liveApp.call('POST', '/cfdis', { token: testKey, body: invoice })).status).toBe(201);
    await liveApp.app.worker.drain();
    expect(rLive.got).toHaveLength(0);

    await a.issue();
    await a.deliver();
    await b.deliver();
    expect(ra.got.map((g) => JSON.parse(g.raw).tenant_id)).toEqual([a.reg.tenant.id]);
    expect(rb.got).toHaveLength(0);
  });

  test('both modes reject private, loopback, link-local and metadata URLs (400); WEBHOOK_ALLOW_PRIVATE accepts them in both', async () => {
    const { t, live, key } = await setup(undefined, { allowPrivate: false });
    for (const token of [live, key]) {
      // Issue 19: the mapped, NAT64, 6to4, IPv4-compatible, site-local and special IPv4 forms were accepted in live mode.
      const embedded = [
        'http://[::ffff:127.0.0.1]/x',
        'http://[64:ff9b::127.0.0.1]/x',
        'http://[2002:7f00:1::]/x',
        'http://[::127.0.0.1]/x',
        'http://[fec0::1]/x',
        'http://198.18.0.1/x',
        'http://192.0.0.8/x',
      ];
      for (const url of [
        'http://127.0.0.1/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://10.0.0.1/x',
        'http://[::1]/x',
        'http://localhost/x',
        'http://192.168.1.5/x',
        ...embedded,
      ]) {
        const res = await t.call('POST', '/webhooks', { token, body: { url, events: ['*'] } });
        expect({ url, status: res.status }).toEqual({ url, status: 400 });
        expect(res.json.error.details[0].field).toBe('url');
      }
    }
    const allowed = await setup(undefined, { allowPrivate: true });
    for (const token of [allowed.key, allowed.live])
      expect((await allowed.t.call('POST', '/webhooks', { token, body: { url: 'http://127.0.0.1/hook', events: ['*'] } })).status).toBe(201);
    expect((await t.call('POST', '/webhooks', { token: key, body: { url: 'ftp://x', events: ['*'] } })).status).toBe(400);
    expect((await t.call('POST', '/webhooks', { token: key, body: { url: 'https://x.example', events: ['cfdi.inventado'] } })).status).toBe(400);
  });

  test('POST /webhooks/:id/test sends webhook.test and answers with the delivery; manual retry resends the same delivery', async () => {
    const { t, key, hook } = await setup([0, 3600]);
    const r = newReceiver();
    r.state.answers = [500, 200];
    const h = await hook(r.url);
    const tested = await t.call('POST', `/webhooks/${h.id}/test`, { token: key });
    expect(tested.status).toBe(200);
    expect(tested.json).toMatchObject({ event: 'webhook.test', attempts: 1, status_code: 500 });
    expect(JSON.parse(r.got[0]!.raw).event).toBe('webhook.test');
    const retried = await t.call('POST', `/webhooks/${h.id}/deliveries/${tested.json.id}/retry`, { token: key });
    expect(retried.json).toMatchObject({ id: tested.json.id, state: 'entregado' });
    expect(retried.json.attempts).toBe(2);
    expect(r.got.map((g) => g.headers.get('x-fc-delivery-id'))).toEqual([tested.json.id, tested.json.id]);
  });

  test('webhook management needs an API key or an ADMIN; VIEWER and OPERATOR get 403', async () => {
    const { t, reg } = await setup();
    for (const role of ['VIEWER', 'OPERATOR'] as const) {
      const u = await reg.userWithRole(role);
      expect((await t.call('GET', '/webhooks', { token: u.token })).status).toBe(403);
    }
    expect((await t.call('POST', '/webhooks', { token: reg.token, body: { url: 'http://127.0.0.1/x', events: ['*'] } })).status).toBe(201);
  });

  test('a slow receiver does not delay other tenants: one endpoint holds at most 8 delivery slots', async () => {
    const t = await createTestApp({ webhookAllowPrivate: true });
    const slowTenant = await issuer(t);
    const fastTenant = await issuer(t, { tenant: TENANTS.FUNK, email: 'fast@example.com' });
    let inFlight = 0;
    let maxInFlight = 0;
    let slowAnswered = 0;
    const slowServer = Bun.serve({
      port: 0,
      async fetch(req) {
        await req.text();
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await Bun.sleep(5000); // long enough that 20 local deliveries fit in it on a loaded machine
        inFlight--;
        slowAnswered++;
        return new Response('ok');
      },
    });
    const fast = newReceiver();
    try {
      const hookFor = async (tenant: Issuer, url: string) =>
        (await t.call('POST', '/webhooks', { token: (await tenant.createKey()).key, body: { url, events: ['*'] } })).json as { id: string };
      await hookFor(slowTenant, `http://127.0.0.1:${slowServer.port}/`);
      await hookFor(fastTenant, fast.url);
      const [slowId, fastId] = [slowTenant.tenant.id as string, fastTenant.tenant.id as string];
      // 80 events for the slow tenant first (more than the 64 delivery slots), then 20 for the fast one.
      await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => {
        for (let i = 0; i < 80; i++) await recordEvent(tx, { tenantId: slowId, environment: 'test', type: 'csd.por_vencer', data: { i }, now: t.clock.now });
        for (let i = 0; i < 20; i++) await recordEvent(tx, { tenantId: fastId, environment: 'test', type: 'csd.por_vencer', data: { i }, now: t.clock.now });
      });
      const draining = t.app.worker.drain();
      await until(() => fast.got.length >= 20, 'the fast tenant has its 20 deliveries');
      expect(fast.got).toHaveLength(20);
      expect(slowAnswered).toBe(0); // before the first slow attempt ends: no wait for a slow one's slot, on any machine
      expect(inFlight).toBeLessThanOrEqual(8);
      slowServer.stop(true); // the rest of the slow tenant's attempts fail fast
      await draining;
      expect(maxInFlight).toBe(8);
    } finally {
      slowServer.stop(true);
    }
  }, 20_000);

  test('an event of another tenant while a slow receiver holds its slots is delivered at once, not when a slow attempt ends (issue 35)', async () => {
    const t = await createTestApp({ webhookAllowPrivate: true });
    const slowTenant = await issuer(t);
    const otherTenant = await issuer(t, { tenant: TENANTS.FUNK, email: 'other-now@example.com' });
    let inFlight = 0;
    let slowAnswered = 0;
    const slowServer = Bun.serve({
      port: 0,
      idleTimeout: 30,
      async fetch(req) {
        await req.text();
        inFlight++;
        await Bun.sleep(8000); // near the 10 s attempt timeout, as the attack's receiver held each request
        inFlight--;
        slowAnswered++;
        return new Response('ok');
      },
    });
    const other = newReceiver();
    try {
      const hookFor = async (tenant: Issuer, url: string) =>
        expect((await t.call('POST', '/webhooks', { token: (await tenant.createKey()).key, body: { url, events: ['*'] } })).status).toBe(201);
      await hookFor(slowTenant, `http://127.0.0.1:${slowServer.port}/`);
      await hookFor(otherTenant, other.url);
      await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => {
        for (let i = 0; i < 20; i++)
          await recordEvent(tx, { tenantId: slowTenant.tenant.id, environment: 'test', type: 'csd.por_vencer', data: { i }, now: t.clock.now });
      });
      const draining = t.app.worker.drain();
      await until(() => inFlight === 8, "the slow receiver holds its endpoint's 8 slots");
      // The other tenant's event comes while the drain waits on the slow attempts, and wakes the worker as an enqueue does.
      await withTransaction(t.db, { isolation: 'serializable' }, async (tx) =>
        recordEvent(tx, { tenantId: otherTenant.tenant.id, environment: 'test', type: 'csd.por_vencer', data: {}, now: t.clock.now }),
      );
      t.app.worker.wake();
      await until(() => other.got.length === 1, "the other tenant's delivery arrives");
      expect(slowAnswered).toBe(0); // it did not wait for a slow attempt to end, however slow the machine
      slowServer.stop(true);
      await draining;
    } finally {
      slowServer.stop(true);
    }
  }, 30_000);

  test('one tenant with many slow endpoints does not starve another tenant: a tenant holds at most 16 delivery slots', async () => {
    const t = await createTestApp({ webhookAllowPrivate: true });
    const busy = await issuer(t);
    const other = await issuer(t, { tenant: TENANTS.FUNK, email: 'other@example.com' });
    const DELAY_MS = 5000; // long enough that the other delivery arrives within it on a loaded machine
    let inFlight = 0;
    let maxInFlight = 0;
    let slowAnswered = 0;
    const slowServer = Bun.serve({
      port: 0,
      idleTimeout: 30,
      async fetch(req) {
        await req.text();
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await Bun.sleep(DELAY_MS);
        inFlight--;
        slowAnswered++;
        return new Response('ok');
      },
    });
    let slowAnsweredWhenOtherArrived: number | undefined;
    const otherServer = Bun.serve({
      port: 0,
      async fetch(req) {
        await req.text();
        slowAnsweredWhenOtherArrived ??= slowAnswered;
        return new Response('ok');
      },
    });
    try {
      const busyKey = (await busy.createKey()).key;
      // 12 slow endpoints × 8 per lane = 96 slots wanted, more than the pool's 64.
      for (let i = 0; i < 12; i++) {
        expect(
          (await t.call('POST', '/webhooks', { token: busyKey, body: { url: `http://127.0.0.1:${slowServer.port}/hook/${i}`, events: ['*'] } })).status,
        ).toBe(201);
      }
      expect(
        (await t.call('POST', '/webhooks', { token: (await other.createKey()).key, body: { url: `http://127.0.0.1:${otherServer.port}/hook`, events: ['*'] } }))
          .status,
      ).toBe(201);
      await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => {
        for (let i = 0; i < 10; i++)
          await recordEvent(tx, { tenantId: busy.tenant.id, environment: 'test', type: 'csd.por_vencer', data: { i }, now: t.clock.now });
      });
      t.clock.advance(1); // the other tenant's delivery is the youngest due job: oldest-first alone would serve it last
      await withTransaction(t.db, { isolation: 'serializable' }, async (tx) =>
        recordEvent(tx, { tenantId: other.tenant.id, environment: 'test', type: 'csd.por_vencer', data: {}, now: t.clock.now }),
      );
      const draining = t.app.worker.drain();
      await until(() => slowAnsweredWhenOtherArrived !== undefined, "the other tenant's delivery arrives");
      // Delivered while the busy tenant's first attempts still hang: it did not wait for one of their slots.
      expect(slowAnsweredWhenOtherArrived).toBe(0);
      await until(() => maxInFlight >= 16, "the busy tenant's 16 slots are taken");
      expect(maxInFlight).toBe(16); // the busy tenant's share: the rest of its backlog waits
      slowServer.stop(true); // the busy tenant's other attempts fail fast
      await draining;
      expect(maxInFlight).toBe(16);
    } finally {
      slowServer.stop(true);
      otherServer.stop(true);
    }
  }, 30_000);
});
