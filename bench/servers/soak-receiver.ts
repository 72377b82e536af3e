import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook receiver for bench/soak.ts and tests/process/fault.test.ts, in its own process so it outlives every
 * SIGKILL of the service and does not share the load generator's event loop.
 *   POST /hook/<name>    a delivery: counted by X-FC-Delivery-Id; X-FC-Signature checked when <name> has a secret
 *   POST /secret         { name, secret }: the whsec_ secret of the webhook that posts to /hook/<name>
 *   GET  /stats          { deliveries, unique, repeats, bad_signatures, by_event }
 *   GET  /ids            { "<delivery id>": times received, … }
 */
const seen = new Map<string, number>();
const byEvent: Record<string, number> = {};
const secrets = new Map<string, string>();
let deliveries = 0;
let badSignatures = 0;

const server = Bun.serve({
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    if (req.method === 'POST' && url.pathname.startsWith('/hook/')) {
      const raw = await req.text();
      const id = req.headers.get('x-fc-delivery-id') ?? '';
      const secret = secrets.get(url.pathname.slice('/hook/'.length));
      if (secret) {
        const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(raw).digest('hex'));
        const got = Buffer.from(req.headers.get('x-fc-signature') ?? '');
        if (got.length !== expected.length || !timingSafeEqual(got, expected)) badSignatures++;
      }
      deliveries++;
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const event = req.headers.get('x-fc-event') ?? '?';
      byEvent[event] = (byEvent[event] ?? 0) + 1;
      return new Response('ok');
    }
    if (req.method === 'POST' && url.pathname === '/secret') {
      const { name, secret } = (await req.json()) as { name: string; secret: string };
      secrets.set(name, secret);
      return new Response('ok');
    }
    if (url.pathname === '/stats') {
      let repeats = 0;
      for (const n of seen.values()) if (n > 1) repeats++;
      return Response.json({ deliveries, unique: seen.size, repeats, bad_signatures: badSignatures, by_event: byEvent });
    }
    if (url.pathname === '/ids') return Response.json(Object.fromEntries(seen));
    return new Response('not found', { status: 404 });
  },
});
console.log(JSON.stringify({ ready: true, url: `http://127.0.0.1:${server.port}` }));
