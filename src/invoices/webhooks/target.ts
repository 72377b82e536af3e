import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** A host name's addresses; the delivery's dependency, so tests answer without DNS. */
export type HostResolver = (hostname: string) => Promise<{ address: string; family: number }[]>;
export const systemResolver: HostResolver = (hostname) => lookup(hostname, { all: true });

const ranges = <T extends IPv4 | IPv6>(named: Record<string, string[]>) =>
  Object.fromEntries(Object.entries(named).map(([name, cidrs]) => [name, cidrs.map((c) => ipaddr.parseCIDR(c) as [T, number])]));

// Refused by name before ipaddr.js's own classification, so the message says why and a library update cannot let
// one of them through; anything else must still be what ipaddr.js calls `unicast`.
const REFUSED_V4 = ranges<IPv4>({
  'cloud metadata': ['169.254.169.254/32', '168.63.129.16/32'],
  'this-network': ['0.0.0.0/8'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'],
  'carrier-grade NAT': ['100.64.0.0/10'],
  loopback: ['127.0.0.0/8'],
  'link-local': ['169.254.0.0/16'],
  'IETF protocol assignment': ['192.0.0.0/24'],
  documentation: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'],
  benchmarking: ['198.18.0.0/15'],
  multicast: ['224.0.0.0/4'],
  reserved: ['240.0.0.0/4'],
});
const REFUSED_V6 = ranges<IPv6>({
  'cloud metadata': ['fd00:ec2::254/128'],
  unspecified: ['::/128'],
  loopback: ['::1/128'],
  // RFC 8215 lets each network choose where the IPv4 sits inside this prefix: no fixed place to decode it from.
  'local-use NAT64': ['64:ff9b:1::/48'],
  discard: ['100::/64'],
  'unique local': ['fc00::/7'],
  'site-local': ['fec0::/10'],
  'link-local': ['fe80::/10'],
  multicast: ['ff00::/8'],
  documentation: ['2001:db8::/32'],
});

const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
/** IPv6 forms that carry an IPv4 address the packet ends up at: that IPv4 decides. */
const EMBEDDING: { name: string; range: [IPv6, number]; ipv4: (p: number[]) => IPv4[] }[] = [
  { name: 'IPv4-compatible', range: ipaddr.IPv6.parseCIDR('::/96'), ipv4: (p) => [v4(p[6]!, p[7]!)] },
  { name: 'IPv4-translated', range: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), ipv4: (p) => [v4(p[6]!, p[7]!)] },
  { name: 'NAT64', range: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), ipv4: (p) => [v4(p[6]!, p[7]!)] },
  { name: '6to4', range: ipaddr.IPv6.parseCIDR('2002::/16'), ipv4: (p) => [v4(p[1]!, p[2]!)] },
  // Teredo: the server's IPv4, and the client's with every bit flipped.
  { name: 'Teredo', range: ipaddr.IPv6.parseCIDR('2001::/32'), ipv4: (p) => [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)] },
];

const ipv4Class = (a: IPv4): string | undefined => {
  const named = ipaddr.subnetMatch(a, REFUSED_V4, 'unicast');
  if (named !== 'unicast') return named;
  const range = a.range();
  return range === 'unicast' ? undefined : range;
};

/**
 * Why an address may not receive webhooks (not a public unicast address), or undefined. Classified by its parsed
 * bytes: IPv4-mapped IPv6 is its IPv4, and the IPv4 inside NAT64, 6to4, Teredo and IPv4-compatible forms is
 * classified too.
 */
function addressProblem(ip: string): string | undefined {
  let a: IPv4 | IPv6;
  try {
    a = ipaddr.parse(ip);
  } catch {
    return `${ip} is not an IP address`;
  }
  if (a.kind() === 'ipv4') {
    const why = ipv4Class(a as IPv4);
    return why && `${ip} (${why})`;
  }
  const six = a as IPv6;
  if (six.isIPv4MappedAddress()) {
    const inner = six.toIPv4Address();
    const why = ipv4Class(inner);
    return why && `${ip} (IPv4-mapped ${inner}, ${why})`;
  }
  const named = ipaddr.subnetMatch(six, REFUSED_V6, 'unicast');
  if (named !== 'unicast') return `${ip} (${named})`;
  const embedding = EMBEDDING.find((e) => six.match(e.range));
  if (embedding) {
    for (const inner of embedding.ipv4(six.parts)) {
      const why = ipv4Class(inner);
      if (why) return `${ip} (${embedding.name} of ${inner}, ${why})`;
    }
    return undefined;
  }
  const range = six.range();
  return range === 'unicast' ? undefined : `${ip} (${range})`;
}

/** Why a URL can never receive webhooks (scheme, credentials), or undefined. */
function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be http or https';
  if (parsed.username || parsed.password) return 'must not carry credentials';
  return undefined;
}

/** Where an attempt connects: the URL, and the address its host had when checked. */
export interface PinnedTarget {
  url: URL;
  address: string;
  family: number;
}

/**
 * Resolves the URL's host once and checks every address it has (unless private targets are allowed); the attempt
 * then connects to the first of them, so a name cannot answer one address to the check and another to the connect.
 */
export async function resolveTarget(url: string, o: { allowPrivate: boolean; resolve: HostResolver }): Promise<{ target: PinnedTarget } | { problem: string }> {
  const syntax = urlProblem(url);
  if (syntax) return { problem: syntax };
  const parsed = new URL(url);
  // The WHATWG parser has already written decimal, octal and hex IPv4 hosts as dotted quads; IPv6 comes bracketed.
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: ipaddr.parse(host).kind() === 'ipv4' ? 4 : 6 }];
  else {
    try {
      addresses = await o.resolve(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { problem: `host ${host} does not resolve` };
  }
  if (!o.allowPrivate) {
    for (const a of addresses) {
      const why = addressProblem(a.address);
      if (why) return { problem: `${host === a.address ? 'points at' : `host ${host} resolves to`} ${why}, which is not a public address` };
    }
  }
  return { target: { url: parsed, address: addresses[0]!.address, family: addresses[0]!.family } };
}

/** Why a webhook may not take this URL (on create and PATCH, in both environments), or undefined. */
export async function webhookUrlProblem(url: string, o: { allowPrivate: boolean; resolve: HostResolver }): Promise<string | undefined> {
  if (o.allowPrivate) return urlProblem(url); // no address to refuse; every attempt still resolves and pins its own
  const checked = await resolveTarget(url, o);
  return 'problem' in checked ? checked.problem : undefined;
}

/**
 * POSTs to the pinned address: the socket goes to `target.address` (the lookup hook answers it, nothing resolves
 * again), while the Host header, TLS SNI and certificate check use the URL's own name. Redirects are not followed.
 * Reads at most `bodyLimit` characters of the answer; the whole exchange is cut at `timeoutMs`.
 */
export function postPinned(target: PinnedTarget, o: { body: string; headers: Record<string, string>; timeoutMs: number; bodyLimit: number }) {
  const { url, address, family } = target;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (err: null, all: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const byteLimit = o.bodyLimit * 4 + 4; // enough UTF-8 for bodyLimit characters
  return new Promise<{ status: number; retryAfter: string | null; body: string }>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      {
        method: 'POST',
        hostname,
        port: url.port || undefined,
        path: url.pathname + url.search,
        headers: { ...o.headers, host: url.host, 'content-length': String(Buffer.byteLength(o.body)) },
        lookup: pinned,
        agent: false, // a pooled connection would go to the address of an earlier attempt's check
        ...(url.protocol === 'https:' && !ipaddr.isValid(hostname) && { servername: hostname }),
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          clearTimeout(timer);
          const retryAfter = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
            body: Buffer.concat(chunks).toString('utf8').slice(0, o.bodyLimit),
          });
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= byteLimit) {
            finish();
            res.destroy();
          }
        });
        res.on('end', finish);
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      },
    );
    const timer = setTimeout(() => {
      reject(new Error(`no answer within ${o.timeoutMs / 1000} s`));
      req.destroy();
    }, o.timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(o.body);
  });
}
