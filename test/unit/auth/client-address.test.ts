import { describe, expect, it } from 'vitest';
import { clientAddress, grpcPeerAddress, normalizeAddress } from '../../../core/auth/client-address.js';

/** The client address failed-authentication throttling counts and the audit log records (docs/security.md, "Failed authentication"). */
describe('clientAddress', () => {
  it('is the peer, X-Forwarded-For ignored, with no trusted proxy', () => {
    expect(clientAddress('203.0.113.5', { 'x-forwarded-for': '198.51.100.1' }, 0)).toBe('203.0.113.5');
  });

  it('behind one proxy, the last entry (the one it appended), never what the client wrote before it', () => {
    expect(clientAddress('10.0.0.2', { 'x-forwarded-for': '1.2.3.4, 198.51.100.7' }, 1)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.2', { 'x-forwarded-for': ['1.2.3.4', '198.51.100.7'] }, 1)).toBe('198.51.100.7');
  });

  it('behind two proxies, the second entry from the right', () => {
    expect(clientAddress('10.0.0.3', { 'x-forwarded-for': 'spoofed, 198.51.100.8, 10.0.0.2' }, 2)).toBe('198.51.100.8');
  });

  it('falls back to the peer when the proxies wrote fewer entries than trusted', () => {
    expect(clientAddress('203.0.113.9', {}, 1)).toBe('203.0.113.9');
    expect(clientAddress('203.0.113.9', { 'x-forwarded-for': '198.51.100.1' }, 2)).toBe('203.0.113.9');
    expect(clientAddress(undefined, {}, 0)).toBeUndefined();
  });
});

describe('normalizeAddress', () => {
  it('reads IPv4-mapped IPv6 as IPv4 and IPv6 as its /64', () => {
    const addresses = {
      '::ffff:127.0.0.1': '127.0.0.1',
      '2001:db8:1:2:aaaa:bbbb:cccc:dddd': '2001:db8:1:2::/64',
      '2001:db8:1:2::ffff': '2001:db8:1:2::/64',
      '[2001:db8::1]:443': '2001:db8::/64',
      '::1': '::/64',
    };
    for (const [address, normalized] of Object.entries(addresses)) expect(normalizeAddress(address), address).toBe(normalized);
  });

  it('keeps text that is no address, bounded', () => {
    expect(normalizeAddress('unknown')).toBe('unknown');
    expect(normalizeAddress('x'.repeat(500)).length).toBe(64);
  });
});

describe('grpcPeerAddress', () => {
  it("reads grpc-js's peer strings", () => {
    expect(grpcPeerAddress('ipv4:127.0.0.1:52100')).toBe('127.0.0.1');
    expect(grpcPeerAddress('ipv6:[::1]:52100')).toBe('::1');
    expect(grpcPeerAddress('unix:/tmp/sock')).toBeUndefined();
  });
});
