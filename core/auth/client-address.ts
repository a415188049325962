import ipaddr from 'ipaddr.js';
import type { HeaderBag } from '../project-context.js';

/**
 * The address a request comes from, as failed-authentication throttling counts it and the audit
 * log records it (docs/security.md, "Failed authentication").
 *
 * - `X-Forwarded-For` is believed only as far as `trustProxyHops` (TRUST_PROXY_HOPS) proxies of
 *   the operator's own add to it: with 1 (one ingress or load balancer in front), the last
 *   entry, which that proxy wrote; with 0 (the default), the connection's peer and no header at
 *   all. Entries further left are whatever the client sent, so believing them would let anyone
 *   pick the address they are counted as (and throttle someone else's).
 * - An IPv4-mapped IPv6 address is its IPv4 address. Any other IPv6 address counts as its /64
 *   network: one subscriber usually holds a whole /64 and could otherwise change address at will.
 */
export function clientAddress(peer: string | undefined, headers: HeaderBag, trustProxyHops: number): string | undefined {
  let raw = peer;
  if (trustProxyHops > 0) {
    const header = headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    // The proxies' own entries are the last `trustProxyHops`; the first of them names the client.
    if (hops.length >= trustProxyHops) raw = hops[hops.length - trustProxyHops];
  }
  return raw === undefined ? undefined : normalizeAddress(raw);
}

/**
 * The last addresses normalized: a request's address is normalized on every call (throttling,
 * audit), and a server's clients are few; parsing one cost ~15 µs, a large share of a small
 * ingest request's fixed cost. Emptied when full, so a flood of distinct addresses stays bounded.
 */
const normalized = new Map<string, string>();
const NORMALIZED_MAX = 4096;

/** `::ffff:1.2.3.4` as `1.2.3.4`, IPv6 as its /64 (`2001:db8:1:2::/64`); text that is no address as it is, bounded. */
export function normalizeAddress(raw: string): string {
  let address = normalized.get(raw);
  if (address === undefined) {
    if (normalized.size >= NORMALIZED_MAX) normalized.clear();
    address = parseAddress(raw);
    normalized.set(raw, address);
  }
  return address;
}

function parseAddress(raw: string): string {
  const bare = raw
    .trim()
    .replace(/^\[(.*)\](?::\d+)?$/, '$1')
    .split('%')[0];
  if (!ipaddr.isValid(bare))
    return raw
      .trim()
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
      .slice(0, 64);
  const addr = ipaddr.process(bare);
  if (addr.kind() === 'ipv4') return addr.toString();
  const parts = (addr as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4);
  return `${ipaddr.IPv6.parse(`${parts.join(':')}::`).toString()}/64`;
}

/** grpc-js's peer (`ipv4:127.0.0.1:52100`, `ipv6:[::1]:52100`) as an address. */
export function grpcPeerAddress(peer: string): string | undefined {
  const m = /^ipv[46]:(?:\[([^\]]+)\]|([^:]+)):\d+$/.exec(peer);
  return m ? (m[1] ?? m[2]) : undefined;
}
