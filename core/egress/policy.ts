import dns from 'node:dns';
import os from 'node:os';
import ipaddr from 'ipaddr.js';

/**
 * The egress policy (docs/security.md, "Egress"): where the service may connect when it calls a
 * URL a user supplied (agents, HTTP custom scorers, alert webhooks, and anything later). It
 * judges addresses, not names: `core/egress/fetch.ts` resolves a name, asks here about every
 * address it resolved to, and connects to the address it asked about.
 *
 * - Always refused: this service's own stores', engine's and listeners' addresses and ports,
 *   link-local and cloud metadata addresses, `0.0.0.0/8` and `::`, multicast, broadcast and
 *   reserved ranges.
 * - Loopback and private ranges: refused unless EGRESS_ALLOW allows them, by CIDR or by the
 *   host name the URL names.
 * - Everything else (public unicast): allowed.
 */

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** What an address is, for the policy. */
export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'cloud metadata' | 'unspecified' | 'multicast' | 'broadcast' | 'reserved';

/** Kinds EGRESS_ALLOW may open; every other non-public kind is always refused. */
const ALLOWABLE: ReadonlySet<AddressKind> = new Set(['loopback', 'private']);

type Table = Array<[AddressKind, string]>;

/** First match wins: the metadata addresses sit inside ranges with other names. */
const IPV4_TABLE: Table = [
  ['cloud metadata', '169.254.169.254/32'], // AWS, GCP, Azure, OpenStack
  ['cloud metadata', '100.100.100.200/32'], // Alibaba Cloud
  ['unspecified', '0.0.0.0/8'],
  ['link-local', '169.254.0.0/16'],
  ['multicast', '224.0.0.0/4'],
  ['broadcast', '255.255.255.255/32'],
  ['reserved', '240.0.0.0/4'],
  ['reserved', '192.0.0.0/24'],
  ['reserved', '192.0.2.0/24'],
  ['reserved', '192.88.99.0/24'],
  ['reserved', '198.18.0.0/15'],
  ['reserved', '198.51.100.0/24'],
  ['reserved', '203.0.113.0/24'],
  ['loopback', '127.0.0.0/8'],
  ['private', '10.0.0.0/8'],
  ['private', '172.16.0.0/12'],
  ['private', '192.168.0.0/16'],
  ['private', '100.64.0.0/10'], // carrier-grade NAT, used inside clouds
];

const IPV6_TABLE: Table = [
  ['cloud metadata', 'fd00:ec2::254/128'], // AWS IMDS over IPv6
  ['unspecified', '::/128'],
  ['loopback', '::1/128'],
  ['reserved', '::/96'], // IPv4-compatible addresses (deprecated)
  ['link-local', 'fe80::/10'],
  ['multicast', 'ff00::/8'],
  ['private', 'fc00::/7'], // unique local
  ['private', 'fec0::/10'], // site-local (deprecated)
  ['private', '64:ff9b:1::/48'], // local-use NAT64
  ['reserved', '100::/64'], // discard
  ['reserved', '2001::/23'], // IETF protocol assignments: Teredo, benchmarking, ORCHID...
  ['reserved', '2001:db8::/32'], // documentation
  ['reserved', '3fff::/20'], // documentation
  ['reserved', '5f00::/16'], // segment routing
];

const parseTable = (table: Table) => table.map(([kind, cidr]) => [kind, ipaddr.parseCIDR(cidr)] as const);
const V4 = parseTable(IPV4_TABLE);
const V6 = parseTable(IPV6_TABLE);
/** Global unicast: the only IPv6 space left public once the table's ranges are out. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');
const RFC6145 = ipaddr.parseCIDR('::ffff:0:0:0/96');

/**
 * The IPv4 address an IPv6 one carries and reaches: IPv4-mapped (`::ffff:127.0.0.1`), SIIT
 * (RFC 6145), NAT64 (`64:ff9b::/96`) and 6to4 (`2002:7f00:1::`). Judged as that IPv4 address.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  const p = ip.parts;
  if (ip.match(RFC6145) || ip.match(NAT64)) return new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);
  if (ip.match(SIX_TO_FOUR)) return new ipaddr.IPv4([p[1] >> 8, p[1] & 0xff, p[2] >> 8, p[2] & 0xff]);
  return undefined;
}

export interface Classified {
  kind: AddressKind;
  /** The address as shown in messages: normalized, an embedded IPv4 address as itself. */
  address: string;
  /** The address judged (an IPv6 address carrying an IPv4 one is judged as the IPv4 one). */
  ip: Address;
}

/** Parses an IP address (no brackets); undefined when `text` is not one. */
export function parseAddress(text: string): Address | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  // Only the canonical forms: `127.1` or `0x7f000001` are host names to DNS, and URL parsing
  // has already turned them into dotted quads.
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (bare.includes(':') && ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  return undefined;
}

/** What kind of address `ip` is. */
export function classifyAddress(ip: Address): Classified {
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    const v4 = embeddedIPv4(v6);
    if (v4) {
      const inner = classifyAddress(v4);
      return { ...inner, address: `${inner.address}, as ${v6.toRFC5952String()}` };
    }
    const hit = V6.find(([, cidr]) => v6.match(cidr));
    const kind = hit ? hit[0] : v6.match(GLOBAL_UNICAST) ? 'public' : 'reserved';
    return { kind, address: v6.toRFC5952String(), ip: v6 };
  }
  const v4 = ip as ipaddr.IPv4;
  const hit = V4.find(([, cidr]) => v4.match(cidr));
  return { kind: hit ? hit[0] : 'public', address: v4.toString(), ip: v4 };
}

/** An address and port of this service (a store, the engine, a listener): never a destination. */
export interface OwnEndpoint {
  host: string;
  port: number;
}

/** EGRESS_ALLOW, parsed: CIDRs, and host names (`name` exactly, `*.name` for its subdomains). */
export interface AllowList {
  cidrs: Array<[Address, number]>;
  hosts: string[];
}

/** A host name as compared: lower case, without the trailing dot of a fully qualified name. */
const normalHost = (host: string) => host.toLowerCase().replace(/\.$/, '');

const HOST_NAME = /^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * Parses EGRESS_ALLOW's entries (already split on commas): a CIDR (`10.0.0.0/8`, `fd00::/8`), an
 * address (a /32 or /128), a host name, or `*.` and a domain. `none` alone is the empty list.
 * Returns the list and the entries it could not read.
 */
export function parseAllowList(entries: readonly string[]): { list: AllowList; problems: string[] } {
  const list: AllowList = { cidrs: [], hosts: [] };
  const problems: string[] = [];
  const items = entries.map((e) => e.trim()).filter(Boolean);
  if (items.length === 1 && items[0].toLowerCase() === 'none') return { list, problems };
  for (const item of items) {
    if (item.toLowerCase() === 'none') {
      problems.push("'none' stands alone (it allows nothing)");
      continue;
    }
    const [addr, bits, extra] = item.split('/');
    const ip = parseAddress(addr);
    if (ip) {
      const max = ip.kind() === 'ipv4' ? 32 : 128;
      const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
      if (extra !== undefined || !(prefix >= 0 && prefix <= max)) problems.push(`'${item}' is not a CIDR (prefix length 0-${max})`);
      else list.cidrs.push([ip, prefix]);
    } else if (bits === undefined && HOST_NAME.test(normalHost(item))) {
      list.hosts.push(normalHost(item));
    } else {
      problems.push(`'${item}' is neither a CIDR nor a host name`);
    }
  }
  return { list, problems };
}

/** Whether `host` (normalized) matches an allowed host name entry. */
function hostAllowed(hosts: readonly string[], host: string): boolean {
  return hosts.some((entry) => (entry.startsWith('*.') ? host.endsWith(entry.slice(1)) : host === entry));
}

function inCidrs(cidrs: AllowList['cidrs'], ip: Address): boolean {
  return cidrs.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits));
}

/** Why a destination is refused. */
interface Refusal {
  /** The address (and port, for the service's own) as shown. */
  shown: string;
  /** "a loopback address", "an address and port of this service itself" */
  what: string;
  /** ", which EGRESS_ALLOW does not allow" or ", which is always refused" */
  why: string;
}

export type LookupAll = (host: string) => Promise<string[]>;

/** dns.lookup with every address, as the connection itself would resolve the name. */
export const systemLookup: LookupAll = async (host) => (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** This machine's addresses: a port of ours on `0.0.0.0` answers on each. */
function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

export interface EgressPolicyOptions {
  /** EGRESS_ALLOW's entries (or the loopback default's): see {@link parseAllowList}. */
  allow: readonly string[];
  /** This service's endpoints known at creation; more join with `addOwn` as they start. */
  own?: OwnEndpoint[];
  /** Resolves the host names of the service's own remote endpoints (tests pass their own). */
  lookup?: LookupAll;
  /** This machine's addresses (tests pass their own). */
  localAddresses?: () => string[];
}

export interface EgressPolicy {
  /**
   * At registration: why a URL whose host is a literal address is refused ("points to a loopback
   * address (127.0.0.1), which EGRESS_ALLOW does not allow"), or undefined. Host names pass:
   * they are judged when a connection is made, by the addresses they resolve to then.
   */
  refusalOfUrl(url: string): Promise<string | undefined>;
  /**
   * When connecting: why connecting to `host` (as the URL names it) on `port` is refused, given
   * every address it resolved to, or undefined. One refused address refuses them all.
   */
  refusalOfConnection(target: { host: string; port: number; addresses: readonly string[] }): Promise<string | undefined>;
  /** Adds endpoints of this service (ports chosen at start: embedded PostgreSQL, listeners on port 0). */
  addOwn(...endpoints: OwnEndpoint[]): void;
}

/** How long the addresses of the service's own remote endpoints (a `postgres` host) are reused. */
const OWN_LOOKUP_TTL_MS = 30_000;

export function createEgressPolicy(options: EgressPolicyOptions): EgressPolicy {
  const { list, problems } = parseAllowList(options.allow);
  if (problems.length) throw new Error(`EGRESS_ALLOW: ${problems.join('; ')}`);
  const own: OwnEndpoint[] = [...(options.own ?? [])];
  const lookup = options.lookup ?? systemLookup;
  const localAddresses = options.localAddresses ?? interfaceAddresses;
  const resolved = new Map<string, { at: number; addresses: Promise<string[]> }>();

  const same = (a: Address, b: Address) => a.kind() === b.kind() && a.toNormalizedString() === b.toNormalizedString();
  const judged = (ip: Address) => classifyAddress(ip).ip;

  /** This machine: loopback, unspecified, or one of its interfaces' addresses. */
  function isLocal(ip: Address): boolean {
    const kind = classifyAddress(ip).kind;
    if (kind === 'loopback' || kind === 'unspecified') return true;
    return localAddresses().some((text) => {
      const local = parseAddress(text.split('%')[0]);
      return local !== undefined && same(judged(local), judged(ip));
    });
  }

  function addressesOf(host: string): Promise<string[]> {
    const hit = resolved.get(host);
    if (hit && Date.now() - hit.at < OWN_LOOKUP_TTL_MS) return hit.addresses;
    const addresses = lookup(host).catch(() => []);
    resolved.set(host, { at: Date.now(), addresses });
    return addresses;
  }

  /** Whether (`host` as named, `ip`) on `port` is one of the service's own endpoints. */
  async function isOwn(host: string, ip: Address, port: number): Promise<boolean> {
    for (const endpoint of own) {
      if (endpoint.port !== port) continue;
      const ownHost = normalHost(endpoint.host);
      const ownIp = parseAddress(ownHost);
      if (ownHost === 'localhost' || (ownIp && isLocal(ownIp))) {
        if (isLocal(ip)) return true;
        continue;
      }
      if (ownIp) {
        if (same(judged(ownIp), judged(ip))) return true;
        continue;
      }
      if (ownHost === normalHost(host)) return true;
      for (const text of await addressesOf(ownHost)) {
        const other = parseAddress(text);
        if (other && same(judged(other), judged(ip))) return true;
      }
    }
    return false;
  }

  async function refusal(host: string, address: string, port: number): Promise<Refusal | undefined> {
    const ip = parseAddress(address);
    // Nothing a resolver returns is anything else; refuse what cannot be judged.
    if (!ip) return { shown: address, what: 'an address that is not an IP address', why: ', which is always refused' };
    const c = classifyAddress(ip);
    if (await isOwn(host, ip, port))
      return { shown: `${c.address} port ${port}`, what: 'an address and port of this service itself', why: ', which is always refused' };
    if (c.kind === 'public') return undefined;
    const what = `${c.kind === 'unspecified' ? 'an' : 'a'} ${c.kind} address`;
    if (!ALLOWABLE.has(c.kind)) return { shown: c.address, what, why: ', which is always refused' };
    if (inCidrs(list.cidrs, c.ip) || inCidrs(list.cidrs, ip) || (!parseAddress(host) && hostAllowed(list.hosts, normalHost(host)))) return undefined;
    return { shown: c.address, what, why: ', which EGRESS_ALLOW does not allow' };
  }

  return {
    async refusalOfUrl(text) {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        return 'is not a URL';
      }
      if (!parseAddress(url.hostname)) return undefined;
      const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
      const r = await refusal(url.hostname, url.hostname.replace(/^\[|\]$/g, ''), port);
      return r && `points to ${r.what} (${r.shown})${r.why}`;
    },
    async refusalOfConnection({ host, port, addresses }) {
      const literal = parseAddress(host) !== undefined;
      for (const address of addresses) {
        const r = await refusal(host, address, port);
        if (r) return literal ? `${r.shown} is ${r.what}${r.why}` : `${host} resolves to ${r.shown}, ${r.what}${r.why}`;
      }
      return undefined;
    },
    addOwn(...endpoints) {
      own.push(...endpoints);
    },
  };
}

/**
 * The allow list when EGRESS_ALLOW is not set: loopback on a server bound to loopback only
 * (`HOST=127.0.0.1`, `::1`, `localhost`), so a local agent on 127.0.0.1 works; else nothing.
 */
export function defaultAllowList(host: string): string[] {
  const h = normalHost(host);
  const ip = parseAddress(h);
  const loopbackOnly = h === 'localhost' || (ip !== undefined && classifyAddress(ip).kind === 'loopback');
  return loopbackOnly ? ['127.0.0.0/8', '::1/128'] : [];
}
