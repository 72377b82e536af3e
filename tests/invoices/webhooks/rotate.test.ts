import { afterAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { createTestApp, issuer, TENANTS } from '../../helpers.ts';

/** A loopback receiver that keeps what it was sent and answers 200. */
interface Received {
  headers: Headers;
  raw: string;
}
const got: Received[] = [];
const server = Bun.serve({
  port: 0,
  async fetch(req) {
    got.push({ headers: req.headers, raw: await req.text() });
    return new Response('ok');
  },
});
const url = `http://127.0.0.1:${server.port}/hook`;
afterAll(() => server.stop(true));

const fcSignature = (secret: string, r: Received) => `sha256=${createHmac('sha256', secret).update(r.raw).digest('hex')}`;
const standardSignature = (secret: string, r: Received) => {
  const signed = `${r.headers.get('webhook-id')}.${r.headers.get('webhook-timestamp')}.${r.raw}`;
  return `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(signed)
    .digest('base64')}`;
};

async function setup() {
  const t = await createTestApp({ webhookAllowPrivate: true });
  const reg = await issuer(t);
  const created = await t.call('POST', '/webhooks', { token: reg.token, body: { url, events: ['*'] } });
  expect(created.status).toBe(201);
  const hook = created.json as { id: string; secret: string };
  /** A webhook.test delivery, as the receiver got it. */
  const deliver = async () => {
    const res = await t.call('POST', `/webhooks/${hook.id}/test`, { token: reg.token });
    expect(res.json.state).toBe('entregado');
    return got.find((g) => g.headers.get('webhook-id') === res.json.id)!;
  };
  return { t, reg, hook, deliver };
}

describe('POST /webhooks/{id}/rotate-secret', () => {
  test('a new secret, shown once; during the overlap deliveries carry both signatures; after it, only the new one', async () => {
    const { t, reg, hook, deliver } = await setup();
    const rotated = await t.call('POST', `/webhooks/${hook.id}/rotate-secret`, { token: reg.token, body: { expire_previous_in_hours: 1 } });
    expect(rotated.status).toBe(200);
    expect(rotated.json).toMatchObject({ id: hook.id, url, estado: 'ACTIVO' });
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(hook.secret);
    expect(rotated.json.previous_secret_expires_at).toBe(new Date(t.clock.now.getTime() + 3600_000).toISOString());
    // Shown once: not on GET.
    expect((await t.call('GET', `/webhooks/${hook.id}`, { token: reg.token })).json.secret).toBeUndefined();

    const during = await deliver();
    expect(during.headers.get('x-fc-signature')).toBe(fcSignature(rotated.json.secret, during));
    expect(during.headers.get('webhook-signature')).toBe(`${standardSignature(rotated.json.secret, during)} ${standardSignature(hook.secret, during)}`);

    t.clock.advance(3600_000 + 1);
    const after = await deliver();
    expect(after.headers.get('x-fc-signature')).toBe(fcSignature(rotated.json.secret, after));
    expect(after.headers.get('webhook-signature')).toBe(standardSignature(rotated.json.secret, after));
  });

  test('the default overlap is 24 hours; 0 stops the old secret at once; a rotation during an overlap drops the oldest secret', async () => {
    const { t, reg, hook, deliver } = await setup();
    const first = await t.call('POST', `/webhooks/${hook.id}/rotate-secret`, { token: reg.token });
    expect(first.status).toBe(200);
    expect(first.json.previous_secret_expires_at).toBe(new Date(t.clock.now.getTime() + 24 * 3600_000).toISOString());

    const second = await t.call('POST', `/webhooks/${hook.id}/rotate-secret`, { token: reg.token, body: { expire_previous_in_hours: 72 } });
    const overlap = await deliver();
    expect(overlap.headers.get('webhook-signature')).toBe(`${standardSignature(second.json.secret, overlap)} ${standardSignature(first.json.secret, overlap)}`);
    expect(overlap.headers.get('webhook-signature')).not.toContain(standardSignature(hook.secret, overlap));

    const third = await t.call('POST', `/webhooks/${hook.id}/rotate-secret`, { token: reg.token, body: { expire_previous_in_hours: 0 } });
    expect(third.json.previous_secret_expires_at).toBeNull();
    const now = await deliver();
    expect(now.headers.get('x-fc-signature')).toBe(fcSignature(third.json.secret, now));
    expect(now.headers.get('webhook-signature')).toBe(standardSignature(third.json.secret, now));
  });

  test('another tenant, VIEWER and OPERATOR are refused; a bad body names the field', async () => {
    const { t, reg, hook } = await setup();
    const other = await issuer(t, { tenant: TENANTS.FUNK, keys: ['test'] });
    const path = `/webhooks/${hook.id}/rotate-secret`;
    expect((await t.call('POST', path, { token: other.token })).status).toBe(404);
    expect((await t.call('POST', path, { token: other.key })).status).toBe(404);
    for (const role of ['VIEWER', 'OPERATOR'] as const) {
      const u = await reg.userWithRole(role);
      expect((await t.call('POST', path, { token: u.token })).status).toBe(403);
    }
    for (const body of [
      { expire_previous_in_hours: 73 },
      { expire_previous_in_hours: -1 },
      { expire_previous_in_hours: 1.5 },
      { expire_previous_in_hours: '1' },
    ]) {
      const res = await t.call('POST', path, { token: reg.token, body });
      expect(res.status).toBe(400);
      expect(res.json.error.details[0].field).toBe('expire_previous_in_hours');
    }
    const unknown = await t.call('POST', path, { token: reg.token, body: { hours: 1 } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.details[0].field).toBe('hours');
    const text = await t.call('POST', path, { token: reg.token, raw: '{}', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    // Nothing above rotated: the delivery still verifies with the first secret alone.
    const res = await t.call('POST', `/webhooks/${hook.id}/test`, { token: reg.token });
    const r = got.find((g) => g.headers.get('webhook-id') === res.json.id)!;
    expect(r.headers.get('webhook-signature')).toBe(standardSignature(hook.secret, r));
  });

  test('Idempotency-Key: a repeat answers the first rotation and does not rotate again', async () => {
    const { t, reg, hook, deliver } = await setup();
    const path = `/webhooks/${hook.id}/rotate-secret`;
    const headers = { 'idempotency-key': 'rotate-1' };
    const first = await t.call('POST', path, { token: reg.token, body: { expire_previous_in_hours: 2 }, headers });
    const again = await t.call('POST', path, { token: reg.token, body: { expire_previous_in_hours: 2 }, headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.secret).toBe(first.json.secret);
    const r = await deliver();
    expect(r.headers.get('webhook-signature')).toBe(`${standardSignature(first.json.secret, r)} ${standardSignature(hook.secret, r)}`);
  });
});
