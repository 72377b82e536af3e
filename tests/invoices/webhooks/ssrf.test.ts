import { afterAll, beforeEach, describe, expect, test } from 'bun:test';
import type { HostResolver } from '../../../src/invoices/webhooks/target.ts';
import { createTestApp, issuer } from '../../helpers.ts';

/**
 * Issue 19 (items 3–5): webhook targets are classified by their parsed bytes, in both environments, at creation, on
 * PATCH and before every attempt, which connects to the very address it checked. No test here resolves real names
 * or connects anywhere but loopback: the resolver is the app's injected dependency, and every delivery goes to a
 * loopback receiver, refused or (with private targets allowed) pinned.
 */

/** Names the tests make up, each answering a list of addresses per call (the last list repeats). */
const answers = new Map<string, string[][]>();
const resolved = new Map<string, number>();
const resolver: HostResolver = async (host) => {
  const n = resolved.get(host) ?? 0;
  resolved.set(host, n + 1);
  const lists = answers.get(host);
  if (!lists) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return lists[Math.min(n, lists.length - 1)]!.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
beforeEach(() => {
  answers.clear();
  resolved.clear();
});

/** A loopback receiver that counts what reaches it and answers something a caller must never see. */
function receiver(hostname = '127.0.0.1', port = 0) {
  const got: { host: string | null }[] = [];
  const server = Bun.serve({ hostname, port, fetch: (req) => (got.push({ host: req.headers.get('host') }), new Response('internal secret')) });
  return { port: server.port, got, stop: () => server.stop(true) };
}
const loopback = receiver();
afterAll(() => loopback.stop());

async function setup(allowPrivate: boolean) {
  const t = await createTestApp({ webhookAllowPrivate: allowPrivate, webhookResolver: resolver, webhookRetrySchedule: [0, 3600] });
  const reg = await issuer(t, { keys: ['test', 'live'] });
  const keys = { test: reg.key, live: reg.live };
  return { t, keys };
}
const ENVIRONMENTS = ['test', 'live'] as const;

// Literal hosts, as a URL may spell them; the WHATWG parser normalises them before the check sees them.
const REFUSED_LITERALS: [string, string][] = [
  ['loopback', 'http://127.0.0.1/hook'],
  ['loopback, the receiver itself', `http://127.0.0.1:${loopback.port}/hook`],
  ['IPv6 loopback', 'http://[::1]/hook'],
  ['private 10/8', 'http://10.0.0.1/hook'],
  ['private 172.16/12', 'http://172.16.0.1/hook'],
  ['private 192.168/16', 'http://192.168.1.5/hook'],
  ['cloud metadata', 'http://169.254.169.254/latest/meta-data'],
  ['cloud metadata (IPv6)', 'http://[fd00:ec2::254]/latest/meta-data'],
  ['link-local', 'http://169.254.1.1/hook'],
  ['carrier-grade NAT', 'http://100.64.0.1/hook'],
  ['this-network', 'http://0.0.0.0/hook'],
  ['benchmarking 198.18/15', 'http://198.18.0.1/hook'],
  ['benchmarking 198.18/15, upper half', 'http://198.19.255.254/hook'],
  ['IETF protocol assignments 192.0.0/24', 'http://192.0.0.8/hook'],
  ['multicast', 'http://224.0.0.1/hook'],
  ['reserved 240/4', 'http://240.0.0.1/hook'],
  ['decimal IPv4', 'http://2130706433/hook'],
  ['octal IPv4', 'http://0177.0.0.1/hook'],
  ['hex IPv4', 'http://0x7f.0x0.0x0.0x1/hook'],
  ['hex, two parts', 'http://0x7f.1/hook'],
  ['short dotted', 'http://127.1/hook'],
  ['IPv4-mapped loopback', `http://[::ffff:127.0.0.1]:${loopback.port}/hook`],
  ['IPv4-mapped metadata, hex', 'http://[::ffff:a9fe:a9fe]/hook'],
  ['IPv4-compatible loopback', 'http://[::127.0.0.1]/hook'],
  ['NAT64 of loopback', 'http://[64:ff9b::127.0.0.1]/hook'],
  ['NAT64 of metadata', 'http://[64:ff9b::a9fe:a9fe]/hook'],
  ['local-use NAT64', 'http://[64:ff9b:1::a00:1]/hook'],
  ['6to4 of loopback', 'http://[2002:7f00:1::1]/hook'],
  ['6to4 of private', 'http://[2002:c0a8:105::1]/hook'],
  ['Teredo with a loopback server', 'http://[2001:0:7f00:1::1]/hook'],
  ['site-local', 'http://[fec0::1]/hook'],
  ['unique local', 'http://[fc00::1]/hook'],
  ['link-local IPv6', 'http://[fe80::1]/hook'],
  ['multicast IPv6', 'http://[ff02::1]/hook'],
];
// Names: what they resolve to decides, every address of them.
const REFUSED_NAMES: [string, string[]][] = [
  ['loopback.test', ['127.0.0.1']],
  ['internal.test', ['10.1.2.3']],
  ['metadata.test', ['169.254.169.254']],
  ['mixed.test', ['8.8.8.8', '192.168.0.10']], // one private address among public ones is enough
  ['mapped.test', ['::ffff:7f00:1']],
  ['nat64.test', ['64:ff9b::a9fe:a9fe']],
  ['sixtofour.test', ['2002:a00:1::1']],
  ['sitelocal.test', ['fec0::1']],
];
const PUBLIC: [string, string][] = [
  ['a public name', 'https://public.test/hook'],
  ['a public IPv4', 'http://8.8.8.8/hook'],
  ['a public IPv6', 'http://[2606:4700::1111]/hook'],
  ['NAT64 of a public IPv4', 'http://[64:ff9b::808:808]/hook'],
  ['6to4 of a public IPv4', 'http://[2002:808:808::1]/hook'],
];

describe('webhook targets (SSRF), in both environments', () => {
  for (const environment of ENVIRONMENTS) {
    test(`${environment}: every non-public form is refused on create and on PATCH (400 naming url); public ones are accepted`, async () => {
      const { t, keys } = await setup(false);
      const token = keys[environment];
      const reached = loopback.got.length;
      for (const [name, addresses] of REFUSED_NAMES) answers.set(name, [addresses]);
      answers.set('public.test', [['8.8.8.8', '2606:4700::1111']]);
      const existing = await t.call('POST', '/webhooks', { token, body: { url: 'https://public.test/hook', events: ['*'] } });
      expect(existing.status).toBe(201);
      const urls = [
        ...REFUSED_LITERALS.map(([why, url]) => [why, url]),
        ...REFUSED_NAMES.map(([name, a]) => [`${name} → ${a.join(', ')}`, `http://${name}/hook`]),
      ];
      for (const [why, url] of urls) {
        for (const [method, path] of [
          ['POST', '/webhooks'],
          ['PATCH', `/webhooks/${existing.json.id}`],
        ] as const) {
          const res = await t.call(method, path, { token, body: method === 'POST' ? { url, events: ['*'] } : { url } });
          expect({ why, method, status: res.status }).toEqual({ why, method, status: 400 });
          expect(res.json.error.details).toEqual([{ field: 'url', issue: expect.stringContaining('which is not a public address') }]);
        }
      }
      expect((await t.call('GET', `/webhooks/${existing.json.id}`, { token })).json.url).toBe('https://public.test/hook');
      const nowhere = await t.call('POST', '/webhooks', { token, body: { url: 'https://nowhere.test/hook', events: ['*'] } });
      expect(nowhere.json.error.details).toEqual([{ field: 'url', issue: 'host nowhere.test does not resolve' }]);
      for (const [why, url] of PUBLIC) {
        const res = await t.call('POST', '/webhooks', { token, body: { url, events: ['*'] } });
        expect({ why, status: res.status }).toEqual({ why, status: 201 });
      }
      expect(loopback.got.length).toBe(reached);
    });

    test(`${environment}: a name that resolved public at creation and private at delivery is refused before connecting; the answer is never shown`, async () => {
      const { t, keys } = await setup(false);
      const token = keys[environment];
      const reached = loopback.got.length;
      answers.set('rebind.test', [['8.8.8.8'], ['127.0.0.1']]);
      const hook = await t.call('POST', '/webhooks', { token, body: { url: `http://rebind.test:${loopback.port}/hook`, events: ['*'] } });
      expect(hook.status).toBe(201);
      const tested = await t.call('POST', `/webhooks/${hook.json.id}/test`, { token });
      expect(tested.status).toBe(200);
      expect(tested.json).toMatchObject({ attempts: 1, status_code: null, response_body: null, state: 'pendiente' });
      expect(tested.json.error).toBe('url host rebind.test resolves to 127.0.0.1 (loopback), which is not a public address');
      expect(tested.text).not.toContain('internal secret');
      expect(loopback.got.length).toBe(reached);
      expect(resolved.get('rebind.test')).toBe(2); // once at creation, once for the attempt
    });

    test(`${environment}: with WEBHOOK_ALLOW_PRIVATE each attempt resolves once and connects to that address, with the URL's Host`, async () => {
      const { t, keys } = await setup(true);
      const token = keys[environment];
      const other = receiver('127.0.0.2', loopback.port); // same port, another loopback address
      try {
        answers.set('pinned.test', [['127.0.0.1'], ['127.0.0.2']]);
        const before = loopback.got.length;
        const hook = await t.call('POST', '/webhooks', { token, body: { url: `http://pinned.test:${loopback.port}/hook`, events: ['*'] } });
        expect(hook.status).toBe(201);
        expect(resolved.get('pinned.test')).toBeUndefined(); // nothing to refuse: no look-up at creation
        const first = await t.call('POST', `/webhooks/${hook.json.id}/test`, { token });
        expect(first.json).toMatchObject({ status_code: 200, response_body: 'internal secret', state: 'entregado' });
        expect(loopback.got.slice(before)).toEqual([{ host: `pinned.test:${loopback.port}` }]);
        expect(resolved.get('pinned.test')).toBe(1);
        // The name now answers another address: the next attempt goes there, and still resolves only once.
        await t.call('POST', `/webhooks/${hook.json.id}/deliveries/${first.json.id}/retry`, { token });
        expect(other.got).toEqual([{ host: `pinned.test:${loopback.port}` }]);
        expect(loopback.got.length - before).toBe(1);
        expect(resolved.get('pinned.test')).toBe(2);
      } finally {
        other.stop();
      }
    });
  }
});
