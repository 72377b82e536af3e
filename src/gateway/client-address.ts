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

/**
 * Peers parsed once: ipaddr's parse tries IPv6 first and costs more than the rest of the gateway's work on a request,
 * while a service sees the same few peers (its proxies, its clients) over and over. Bounded: cleared when full.
 */
const peers = new Map<string, { address: ipaddr.IPv4 | ipaddr.IPv6; text: string } | null>();
const MAX_PEERS = 10_000;

function peerOf(peer: string) {
  let known = peers.get(peer);
  if (known === undefined) {
    const address = parse(peer);
    known = address ? { address, text: address.toString() } : null;
    if (peers.size >= MAX_PEERS) peers.clear();
    peers.set(peer, known);
  }
  return known;
}

function isTrusted(address: ipaddr.IPv4 | ipaddr.IPv6, proxies: TrustedProxies): boolean {
  return proxies.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

/**
 * The client's address: the peer's, unless the peer is a trusted proxy; then X-Forwarded-For is read from the right
 * (each proxy appends the address it received from), skipping trusted proxies, and the first other address is the
 * client. An entry that is not an address ends the walk there: what lies left of it was written by the client.
 */
export function clientAddressOf(peer: string | undefined, forwardedFor: string | undefined, proxies: TrustedProxies): string {
  const known = peer === undefined ? undefined : peerOf(peer);
  if (!known) return peer ?? 'unknown';
  const { address: peerAddress, text } = known;
  if (proxies.length === 0 || !forwardedFor || !isTrusted(peerAddress, proxies)) return text;
  let client = peerAddress;
  const hops = forwardedFor.split(',').map((hop) => hop.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parse(hops[i]!);
    if (!hop) break;
    client = hop;
    if (!isTrusted(hop, proxies)) break;
  }
  return client.toString();
}
