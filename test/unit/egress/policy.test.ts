import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.js';
import { ConfigError } from '../../../core/errors.js';
import { createEgressPolicy, parseAllowList, type EgressPolicyOptions } from '../../../core/egress/policy.js';
import { configuredOwnEndpoints } from '../../../runtime/egress.js';

/** The egress policy (docs/security.md, "Egress"): what it refuses, what EGRESS_ALLOW opens, and the service's own endpoints. */

const policy = (allow: string[] = [], extra: Partial<EgressPolicyOptions> = {}) =>
  createEgressPolicy({ allow, localAddresses: () => ['127.0.0.1', '::1', '10.0.0.7'], lookup: () => Promise.resolve([]), ...extra });

const NOT_ALLOWED = 'which EGRESS_ALLOW does not allow';
const ALWAYS = 'which is always refused';

describe('every way of writing loopback', () => {
  // WHATWG URL parsing turns decimal, hex, octal, short and trailing-dot IPv4 into a dotted quad.
  const forms = ['127.0.0.1', '2130706433', '0x7f000001', '0x7F000001', '127.1', '0x7f.1', '017700000001', '127.0.0.1.', '127.000.000.001'];
  it.each(forms)('http://%s:8080/ is refused at registration as 127.0.0.1', async (form) => {
    expect(new URL(`http://${form}:8080/`).hostname).toBe('127.0.0.1');
    expect(await policy().refusalOfUrl(`http://${form}:8080/agent`)).toBe(`points to a loopback address (127.0.0.1), ${NOT_ALLOWED}`);
  });

  it('refuses IPv6 loopback and IPv4 loopback inside IPv6', async () => {
    const p = policy();
    expect(await p.refusalOfUrl('http://[::1]:8080/')).toBe(`points to a loopback address (::1), ${NOT_ALLOWED}`);
    expect(await p.refusalOfUrl('http://[0:0:0:0:0:0:0:1]/')).toBe(`points to a loopback address (::1), ${NOT_ALLOWED}`);
    for (const mapped of ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::ffff:0:7f00:1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]']) {
      expect(await p.refusalOfUrl(`http://${mapped}/`), mapped).toMatch(
        new RegExp(`^points to a loopback address \\(127\\.0\\.0\\.1, as [0-9a-f:.]+\\), ${NOT_ALLOWED}$`),
      );
    }
  });

  it('judges host names only when connecting, by every address they resolve to', async () => {
    const p = policy();
    expect(await p.refusalOfUrl('http://localhost:8080/')).toBeUndefined();
    expect(await p.refusalOfConnection({ host: 'localhost', port: 8080, addresses: ['127.0.0.1'] })).toBe(
      `localhost resolves to 127.0.0.1, a loopback address, ${NOT_ALLOWED}`,
    );
    expect(await p.refusalOfConnection({ host: '127.0.0.1', port: 8080, addresses: ['127.0.0.1'] })).toBe(`127.0.0.1 is a loopback address, ${NOT_ALLOWED}`);
    // One refused address refuses the name: the connection could land on it.
    expect(await p.refusalOfConnection({ host: 'mixed.example', port: 80, addresses: ['93.184.216.34', '::1'] })).toBe(
      `mixed.example resolves to ::1, a loopback address, ${NOT_ALLOWED}`,
    );
    expect(
      await p.refusalOfConnection({ host: 'example.com', port: 443, addresses: ['93.184.216.34', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] }),
    ).toBeUndefined();
  });
});

describe('always refused, whatever EGRESS_ALLOW says', () => {
  const cases: Array<[string, string]> = [
    ['0.0.0.0', 'an unspecified address (0.0.0.0)'],
    ['0', 'an unspecified address (0.0.0.0)'],
    ['0.1.2.3', 'an unspecified address (0.1.2.3)'],
    ['[::]', 'an unspecified address (::)'],
    ['169.254.169.254', 'a cloud metadata address (169.254.169.254)'],
    ['[fd00:ec2::254]', 'a cloud metadata address (fd00:ec2::254)'],
    ['100.100.100.200', 'a cloud metadata address (100.100.100.200)'],
    ['[::ffff:169.254.169.254]', 'a cloud metadata address (169.254.169.254, as ::ffff:a9fe:a9fe)'],
    ['169.254.10.1', 'a link-local address (169.254.10.1)'],
    ['[fe80::1]', 'a link-local address (fe80::1)'],
    ['224.0.0.251', 'a multicast address (224.0.0.251)'],
    ['[ff02::1]', 'a multicast address (ff02::1)'],
    ['255.255.255.255', 'a broadcast address (255.255.255.255)'],
    ['240.0.0.1', 'a reserved address (240.0.0.1)'],
    ['192.0.2.10', 'a reserved address (192.0.2.10)'],
    ['[2001:db8::1]', 'a reserved address (2001:db8::1)'],
    ['[::7f00:1]', 'a reserved address (::7f00:1)'],
  ];
  it.each(cases)('http://%s/ points to %s', async (host, what) => {
    for (const allow of [[], ['0.0.0.0/0', '::/0'], ['169.254.0.0/16', 'fe80::/10', 'fd00::/8']]) {
      expect(await policy(allow).refusalOfUrl(`http://${host}/`)).toBe(`points to ${what}, ${ALWAYS}`);
    }
  });

  it('refuses a name that resolves to the metadata address, even an allowed name', async () => {
    const p = policy(['metadata.internal']);
    expect(await p.refusalOfConnection({ host: 'metadata.internal', port: 80, addresses: ['169.254.169.254'] })).toBe(
      `metadata.internal resolves to 169.254.169.254, a cloud metadata address, ${ALWAYS}`,
    );
  });
});

describe('private and loopback ranges: refused unless EGRESS_ALLOW allows them', () => {
  const privates = ['10.1.2.3', '172.16.0.1', '172.31.255.254', '192.168.1.1', '100.64.0.1', '[fc00::1]', '[fd12:3456::1]'];
  it.each(privates)('http://%s/ is private', async (host) => {
    expect(await policy().refusalOfUrl(`http://${host}/`)).toMatch(new RegExp(`^points to a private address \\(.+\\), ${NOT_ALLOWED}$`));
  });

  it('allows public addresses', async () => {
    for (const host of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '[2606:4700::1111]', '[::ffff:8.8.8.8]'])
      expect(await policy().refusalOfUrl(`https://${host}/`), host).toBeUndefined();
  });

  it('opens exactly the CIDRs listed', async () => {
    const p = policy(['127.0.0.1/32', '10.0.0.0/8', 'fd00::/8']);
    expect(await p.refusalOfUrl('http://127.0.0.1:9000/')).toBeUndefined();
    expect(await p.refusalOfUrl('http://2130706433:9000/')).toBeUndefined();
    expect(await p.refusalOfUrl('http://[::ffff:127.0.0.1]:9000/')).toBeUndefined();
    expect(await p.refusalOfUrl('http://127.0.0.2/')).toBe(`points to a loopback address (127.0.0.2), ${NOT_ALLOWED}`);
    expect(await p.refusalOfUrl('http://[::1]/')).toBe(`points to a loopback address (::1), ${NOT_ALLOWED}`);
    expect(await p.refusalOfUrl('http://10.200.0.1/')).toBeUndefined();
    expect(await p.refusalOfUrl('http://192.168.0.1/')).toBe(`points to a private address (192.168.0.1), ${NOT_ALLOWED}`);
    expect(await p.refusalOfUrl('http://[fd12::1]/')).toBeUndefined();
    expect(await p.refusalOfUrl('http://[fc00::1]/')).toBe(`points to a private address (fc00::1), ${NOT_ALLOWED}`);
  });

  it('opens private addresses to the host names listed, exactly or by `*.` domain', async () => {
    const p = policy(['agents.internal', '*.corp.example']);
    const at = (host: string, address = '10.0.0.5') => p.refusalOfConnection({ host, port: 80, addresses: [address] });
    expect(await at('agents.internal')).toBeUndefined();
    expect(await at('AGENTS.internal.')).toBeUndefined();
    expect(await at('scorer.corp.example')).toBeUndefined();
    expect(await at('a.b.corp.example', '::1')).toBeUndefined();
    expect(await at('corp.example')).toBe(`corp.example resolves to 10.0.0.5, a private address, ${NOT_ALLOWED}`);
    expect(await at('evil.example')).toBe(`evil.example resolves to 10.0.0.5, a private address, ${NOT_ALLOWED}`);
    expect(await at('notcorp.example')).toBe(`notcorp.example resolves to 10.0.0.5, a private address, ${NOT_ALLOWED}`);
    // A host name never opens a literal address.
    expect(await p.refusalOfUrl('http://10.0.0.5/')).toBe(`points to a private address (10.0.0.5), ${NOT_ALLOWED}`);
  });
});

describe("the service's own endpoints", () => {
  it('refuses its stores, engine and listeners on any local address, even where loopback is allowed', async () => {
    const p = policy(['127.0.0.0/8', '::1/128', '10.0.0.0/8'], { own: [{ host: '127.0.0.1', port: 5432 }] });
    p.addOwn({ host: '0.0.0.0', port: 3000 });
    expect(await p.refusalOfUrl('http://127.0.0.1:5432/')).toBe(`points to an address and port of this service itself (127.0.0.1 port 5432), ${ALWAYS}`);
    expect(await p.refusalOfUrl('http://[::1]:5432/')).toMatch(/this service itself/);
    expect(await p.refusalOfUrl('http://127.0.0.1:5433/')).toBeUndefined();
    // Bound to every interface: this machine's own addresses too.
    expect(await p.refusalOfUrl('http://10.0.0.7:3000/')).toMatch(/this service itself/);
    expect(await p.refusalOfUrl('http://10.0.0.8:3000/')).toBeUndefined();
    expect(await p.refusalOfConnection({ host: 'localhost', port: 3000, addresses: ['127.0.0.1'] })).toBe(
      `localhost resolves to 127.0.0.1 port 3000, an address and port of this service itself, ${ALWAYS}`,
    );
  });

  it('refuses remote stores by the addresses their names resolve to', async () => {
    const lookup = (host: string) => Promise.resolve(host === 'postgres' ? ['10.0.0.9'] : []);
    const p = policy(['10.0.0.0/8'], { lookup, own: [{ host: 'postgres', port: 5432 }] });
    expect(await p.refusalOfUrl('http://10.0.0.9:5432/')).toMatch(/this service itself/);
    expect(await p.refusalOfConnection({ host: 'postgres', port: 5432, addresses: ['10.0.0.9'] })).toMatch(/this service itself/);
    expect(await p.refusalOfUrl('http://10.0.0.9:8080/')).toBeUndefined();
  });

  it('lists the configured stores, broker, engine and listeners', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u:p@db.internal/agent_eval',
      CLICKHOUSE_URL: 'https://u:p@ch.internal',
      KAFKA_BROKERS: 'k1:9093,[fd00::5]',
      TEMPORAL_ADDRESS: 'temporal:7233',
      OTLP_GRPC_PORT: '0',
    });
    expect(configuredOwnEndpoints(config)).toEqual([
      { host: '0.0.0.0', port: 3000 },
      { host: '0.0.0.0', port: 4318 },
      { host: '0.0.0.0', port: 8081 },
      { host: 'ch.internal', port: 8443 },
      { host: 'db.internal', port: 5432 },
      { host: 'temporal', port: 7233 },
      { host: 'k1', port: 9093 },
      { host: 'fd00::5', port: 9092 },
    ]);
  });
});

describe('EGRESS_ALLOW', () => {
  it('reads CIDRs, addresses and host names, and names what it cannot read', () => {
    expect(parseAllowList(['10.0.0.0/8', '::1', 'agents.internal', '*.corp.example']).problems).toEqual([]);
    expect(parseAllowList(['none']).list).toEqual({ cidrs: [], hosts: [] });
    expect(parseAllowList(['none', '10.0.0.0/8']).problems).toEqual(["'none' stands alone (it allows nothing)"]);
    expect(parseAllowList(['10.0.0.0/33', 'fd00::/129', 'bad host!', '1.2.3.4/8/9', '10.0.0.0/x']).problems).toEqual([
      "'10.0.0.0/33' is not a CIDR (prefix length 0-32)",
      "'fd00::/129' is not a CIDR (prefix length 0-128)",
      "'bad host!' is neither a CIDR nor a host name",
      "'1.2.3.4/8/9' is not a CIDR (prefix length 0-32)",
      "'10.0.0.0/x' is not a CIDR (prefix length 0-32)",
    ]);
  });

  it('defaults to loopback on a server bound to loopback only, else to nothing', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1']) expect(loadConfig({ HOST: host }).egress.allow, host).toEqual(['127.0.0.0/8', '::1/128']);
    for (const host of ['0.0.0.0', '::', '10.0.0.7']) expect(loadConfig({ HOST: host }).egress.allow, host).toEqual([]);
    expect(loadConfig({}).egress.allow).toEqual([]);
  });

  it('replaces the default when set; `none` is nothing', () => {
    expect(loadConfig({ HOST: '127.0.0.1', EGRESS_ALLOW: 'none' }).egress.allow).toEqual(['none']);
    expect(loadConfig({ HOST: '127.0.0.1', EGRESS_ALLOW: ' 10.0.0.0/8 , agents.internal ' }).egress.allow).toEqual(['10.0.0.0/8', 'agents.internal']);
    expect(loadConfig({ HOST: '127.0.0.1', EGRESS_ALLOW: '' }).egress.allow).toEqual(['127.0.0.0/8', '::1/128']);
  });

  it('refuses the service a list it cannot read', () => {
    expect(() => loadConfig({ EGRESS_ALLOW: '10.0.0.0/40,ok.example' })).toThrowError(ConfigError);
    expect(() => loadConfig({ EGRESS_ALLOW: '10.0.0.0/40,ok.example' })).toThrowError(/EGRESS_ALLOW: '10\.0\.0\.0\/40' is not a CIDR/);
  });
});
