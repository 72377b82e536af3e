import ipaddr from 'ipaddr.js';

/** Peers whose X-Forwarded-For is believed: the load balancers and reverse proxies in front of the service. */
export type TrustedProxies = readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];

/** TRUSTED_PROXIES entries (addresses or CIDR ranges, checked by src/env.ts) as ranges. */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  return entries.map((entry) => {
    if (ipaddr.isValidCIDR(entry)) return ipaddr.parseCIDR(entry);
    const address = ipaddr.process(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
}

// An IPv4 peer on a dual-stack socket reads ::ffff:a.b.c.d; ranges are matched on the plain IPv4 address.
const parse = (text: string) => (ipaddr.isValid(text) ? ipaddr.process(text) : undefined);

// Proxies that write the client's port too: `a.b.c.d:port`, `[v6]:port` or `[v6]` (RFC 7239's node form).
const WITH_PORT = /^(?:\[([0-9A-Fa-f:.]+)\]|(\d{1,3}(?:\.\d{1,3}){3})):\d{1,5}$|^\[([0-9A-Fa-f:.]+)\]$/;

/** One X-Forwarded-For entry: an address, with or without the port a proxy may append. */
function parseHop(text: string) {
  const plain = parse(text);
  if (plain) return plain;
  const m = WITH_PORT.exec(text);
  const inner = m && (m[1] ?? m[2] ?? m[3]);
  return inner ? parse(inner) : undefined;
}

/**
 * The key a client's budgets are counted under: an IPv4 address alone, an IPv6 address by its /64, the network one
 * subscriber is given (counting each address of it would hand whoever holds one 2^64 budgets).
 */
function budgetKeyOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([parts[0]!, parts[1]!, parts[2]!, parts[3]!, 0, 0, 0, 0]).toString()}/64`;
}

/**
 * Peers parsed once: ipaddr's parse tries IPv6 first and costs more than the rest of the gateway's work on a request,
 * while a service sees the same few peers (its proxies, its clients) over and over. Bounded: cleared when full.
 */
const peers = new Map<string, { address: ipaddr.IPv4 | ipaddr.IPv6; key: string } | null>();
const MAX_PEERS = 10_000;

function peerOf(peer: string) {
  let known = peers.get(peer);
  if (known === undefined) {
    const address = parse(peer);
    known = address ? { address, key: budgetKeyOf(address) } : null;
    if (peers.size >= MAX_PEERS) peers.clear();
    peers.set(peer, known);
  }
  return known;
}

function isTrusted(address: ipaddr.IPv4 | ipaddr.IPv6, proxies: TrustedProxies): boolean {
  return proxies.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

/**
 * The client, as the key its per-address budgets are counted under (budgetKeyOf): the peer, unless the peer is a
 * trusted proxy; then X-Forwarded-For is read from the right (each proxy appends the address it received from),
 * skipping trusted proxies, and the first other address is the client. An entry that is not an address (with or
 * without a port) ends the walk there: what lies left of it was written by the client.
 */
export function clientAddressOf(peer: string | undefined, forwardedFor: string | undefined, proxies: TrustedProxies): string {
  const known = peer === undefined ? undefined : peerOf(peer);
  if (!known) return peer ?? 'unknown';
  const { address: peerAddress, key } = known;
  if (proxies.length === 0 || !forwardedFor || !isTrusted(peerAddress, proxies)) return key;
  let client = peerAddress;
  const hops = forwardedFor.split(',').map((hop) => hop.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseHop(hops[i]!);
    if (!hop) break;
    client = hop;
    if (!isTrusted(hop, proxies)) break;
  }
  return budgetKeyOf(client);
}

/**
 * Whether the client reached us over HTTPS: this connection is TLS, or the peer is a trusted proxy whose
 * X-Forwarded-Proto says https (the proxy that ended TLS). A client's own X-Forwarded-Proto counts for nothing.
 */
export function reachedOverHttps(url: string, peer: string | undefined, forwardedProto: string | undefined, proxies: TrustedProxies): boolean {
  if (url.startsWith('https:')) return true;
  const known = peer === undefined ? undefined : peerOf(peer);
  if (!known || !forwardedProto || !isTrusted(known.address, proxies)) return false;
  return forwardedProto.split(',').at(-1)?.trim().toLowerCase() === 'https';
}
