import { afterAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { createTestApp, issuer, READY } from '../helpers.ts';
import { signIn } from './sign-in.ts';

/**
 * Issue 40, the webhook's secret rotation on /console/webhooks/:id: an ADMIN's form (the overlap hours), the new
 * secret shown once, the API's refusal on the screen; a VIEWER sees no form and a forged one is refused (403);
 * another tenant's webhook is 404.
 */
const t = await createTestApp({ webhookAllowPrivate: true });
const a = await issuer(t, READY);
const b = await issuer(t, { ...READY, tenant: { nombre: 'OTRO COMERCIO' } });
const viewer = await a.userWithRole('VIEWER');
const admin = await signIn(t.app, a.email, a.password);
const seen = await signIn(t.app, viewer.email, viewer.password);

/** A loopback receiver that keeps the signature headers it was sent. */
const got: { headers: Headers; raw: string }[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: async (req) => {
    got.push({ headers: req.headers, raw: await req.text() });
    return new Response('ok');
  },
});
afterAll(() => receiver.stop(true));
const url = `http://127.0.0.1:${receiver.port}/hook?<script>alert(1)</script>`;

const post = (path: string, cookie: string, fields: Record<string, string>) =>
  t.app.request(path, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
const as = (who: { cookie: string; html: string }) => ({
  get: async (path: string) => {
    const res = await t.app.request(path, { headers: { cookie: who.cookie } });
    return { status: res.status, html: await res.text() };
  },
  post: async (path: string, fields: Record<string, string> = {}) => {
    const res = await post(path, who.cookie, { csrf: csrfOf(who.html), ...fields });
    return { status: res.status, html: await res.text(), cacheControl: res.headers.get('cache-control') };
  },
});
const A = as(admin);
const V = as(seen);
const secretOf = (html: string) => /id="webhook-secret">([^<]+)</.exec(html)![1]!;
const standard = (secret: string, r: { headers: Headers; raw: string }) =>
  `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${r.headers.get('webhook-id')}.${r.headers.get('webhook-timestamp')}.${r.raw}`)
    .digest('base64')}`;
/** The receiver's webhook-signature for a webhook.test delivery sent now. */
const signatureNow = async (id: string) => {
  const res = await t.call('POST', `/webhooks/${id}/test`, { token: a.key });
  const r = got.find((g) => g.headers.get('webhook-id') === res.json.id)!;
  return { header: r.headers.get('webhook-signature'), r };
};

describe('the console: rotating a webhook secret', () => {
  test("an ADMIN rotates with an overlap: the new secret shown once, deliveries signed with both; 0 stops the old one; the API's refusal shown", async () => {
    const created = await A.post('/console/webhooks', { url, events: '*' });
    expect(created.status).toBe(200);
    const first = secretOf(created.html);
    const [hook] = (await t.call('GET', '/webhooks', { token: a.key })).json.data as { id: string }[];
    const id = hook!.id;

    const detail = await A.get(`/console/webhooks/${id}`);
    expect(detail.html).toContain(`action="/console/webhooks/${id}/rotate-secret"`);
    expect(detail.html).toContain('<label for="rot-expire_previous_in_hours">');
    for (const hours of ['0', '1', '24', '72']) expect(detail.html).toContain(`<option value="${hours}"`);
    expect(detail.html).toContain('<option value="24" selected>');
    expect(detail.html).toContain('id="rotate-secret"');
    expect(detail.html).not.toContain('<script>alert(1)');
    expect(detail.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');

    const rotated = await A.post(`/console/webhooks/${id}/rotate-secret`, { expire_previous_in_hours: '1' });
    expect(rotated.status).toBe(200);
    expect(rotated.cacheControl).toContain('no-store');
    const second = secretOf(rotated.html);
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect(rotated.html).toContain('id="previous-secret"');
    expect(rotated.html).not.toContain('<script>alert(1)');
    expect((await A.get(`/console/webhooks/${id}`)).html).not.toContain(second); // never again
    const overlap = await signatureNow(id);
    expect(overlap.header).toBe(`${standard(second, overlap.r)} ${standard(first, overlap.r)}`);

    // 0: the old secret stops at once.
    const now = await A.post(`/console/webhooks/${id}/rotate-secret`, { expire_previous_in_hours: '0' });
    expect(now.status).toBe(200);
    const third = secretOf(now.html);
    const alone = await signatureNow(id);
    expect(alone.header).toBe(standard(third, alone.r));

    // A value the API refuses (a forged form): its refusal on the screen, naming the field; nothing rotated.
    const bad = await A.post(`/console/webhooks/${id}/rotate-secret`, { expire_previous_in_hours: '500' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('id="form-error"');
    expect(bad.html).toContain('expire_previous_in_hours');
    const still = await signatureNow(id);
    expect(still.header).toBe(standard(third, still.r));
  });

  test("a VIEWER: the API refuses the page and a forged rotation (403); another tenant's webhook is 404", async () => {
    const mine = (await t.call('POST', '/webhooks', { token: a.key, body: { url, events: ['*'] } })).json as { id: string; secret: string };
    expect((await V.get(`/console/webhooks/${mine.id}`)).status).toBe(403);
    expect((await V.post(`/console/webhooks/${mine.id}/rotate-secret`, { expire_previous_in_hours: '0' })).status).toBe(403);
    const kept = await signatureNow(mine.id);
    expect(kept.header).toBe(standard(mine.secret, kept.r));

    const theirs = (await t.call('POST', '/webhooks', { token: b.key, body: { url, events: ['*'] } })).json.id as string;
    expect((await A.post(`/console/webhooks/${theirs}/rotate-secret`, { expire_previous_in_hours: '24' })).status).toBe(404);
  });
});
