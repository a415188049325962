import { randomInt } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthThrottle } from '../../core/auth/auth-throttle.js';
import { createAuthenticator, type Authenticator } from '../../core/auth/authenticator.js';
import { createLogger } from '../../core/logger.js';
import type { MetadataStore } from '../../core/store/postgres/metadata-store.js';
import { decodeStatus, grpcExport, postTraces, sampleRequest } from '../fixtures/otlp/harness.js';
import { eventually } from '../helpers/eventually.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { startTestService, type TestService } from '../helpers/server.js';

/**
 * Failed authentication is throttled (docs/security.md, "Failed authentication"): per client
 * address and per key prefix, 429 with Retry-After past the limit, on /api/*, /metrics and both
 * OTLP transports; valid keys keep working; the counts are shared by two processes on one
 * PostgreSQL. The real service (PostgreSQL, chDB) behind TRUST_PROXY_HOPS=1, so each test names
 * its client's address in X-Forwarded-For as a proxy would.
 */

const PER_ADDRESS = 5;
const PER_PREFIX = 3;
let svc: TestService;
let metadata: MetadataStore;

beforeAll(async () => {
  svc = await startTestService({
    AGENT_EVAL_ROLES: 'api,collector',
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    AUTH_FAILURES_PER_ADDRESS_PER_MINUTE: String(PER_ADDRESS),
    AUTH_FAILURES_PER_KEY_PREFIX_PER_MINUTE: String(PER_PREFIX),
    TRUST_PROXY_HOPS: '1',
  });
  metadata = openServiceMetadata(svc.dataDir);
});

afterAll(async () => {
  await metadata?.close();
  await svc?.stop();
});

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const random62 = (n: number) => Array.from({ length: n }, () => BASE62[randomInt(62)]).join('');
/** A well-formed key no project has. */
const wrongKey = () => `ae_live_${random62(32)}`;
/** A wrong key with the prefix of `key` (`ae_live_` and 8 characters), as someone who read the prefix in a key list would send. */
const withPrefixOf = (key: string) => `${key.slice(0, 16)}${random62(24)}`;

let last = 0;
/** A client address of its own for each use (TEST-NET-2: counted, never connected to). */
const newAddress = () => `198.51.100.${++last}`;

/**
 * Fixed one-minute windows restart every count at the top of the minute: a test that needs its
 * counts to hold starts with at least `needMs` of the window left.
 */
async function roomInWindow(needMs = 25_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 100));
}

function call(path: string, key: string | null, address: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('x-forwarded-for', address);
  if (key) headers.set('x-api-key', key);
  return fetch(`${svc.apiUrl}${path}`, { ...init, headers });
}

async function statuses(n: number, send: () => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await send();
    await res.arrayBuffer();
    out.push(res.status);
  }
  return out;
}

async function expectThrottled(res: Response): Promise<void> {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(await res.json()).toEqual({ error: 'Too many failed authentication attempts', code: 'RATE_LIMITED', status: 429, retry_after: retryAfter });
}

describe('per client address', () => {
  it(`answers 401 to ${PER_ADDRESS} wrong keys a minute from one address, then 429 with Retry-After to anything from it`, async () => {
    await roomInWindow();
    const attacker = newAddress();
    expect(await statuses(PER_ADDRESS, () => call('/api/traces', wrongKey(), attacker))).toEqual(Array(PER_ADDRESS).fill(401));
    await expectThrottled(await call('/api/traces', wrongKey(), attacker));
    // Checked no more: even a valid key never seen from there waits for the window to end.
    const fresh = await svc.keyFor('throttle-fresh');
    await expectThrottled(await call('/api/traces', fresh, attacker, { headers: { 'x-project-id': 'throttle-fresh' } }));
    // Every other address is untouched, the same key included.
    expect((await call('/api/traces', fresh, newAddress(), { headers: { 'x-project-id': 'throttle-fresh' } })).status).toBe(200);
    expect((await call('/api/traces', wrongKey(), newAddress())).status).toBe(401);
  });

  it('keeps a valid key working from an address others spray from, once it authenticated from there', async () => {
    await roomInWindow();
    const office = newAddress();
    const key = await svc.keyFor('throttle-office');
    const asClient = () => call('/api/traces', key, office, { headers: { 'x-project-id': 'throttle-office' } });
    expect((await asClient()).status).toBe(200);
    // A misconfigured exporter behind the same NAT.
    expect(await statuses(PER_ADDRESS, () => call('/api/traces', wrongKey(), office))).toEqual(Array(PER_ADDRESS).fill(401));
    await expectThrottled(await call('/api/traces', wrongKey(), office));
    expect(await statuses(3, asClient)).toEqual([200, 200, 200]);
  });

  it('does not count calls without credentials: they are no guesses', async () => {
    await roomInWindow();
    const browser = newAddress();
    expect(await statuses(PER_ADDRESS * 2, () => call('/api/traces', null, browser))).toEqual(Array(PER_ADDRESS * 2).fill(401));
    expect((await call('/api/traces', svc.apiKey!, browser)).status).toBe(200);
  });

  it('throttles /metrics and both OTLP transports too: OTLP/HTTP 429 with a google.rpc.Status, gRPC RESOURCE_EXHAUSTED with retry-after', async () => {
    await roomInWindow();
    const scanner = newAddress();
    // Failures over gRPC count (the address from x-forwarded-for metadata, as a proxy in front would add it).
    for (let i = 0; i < PER_ADDRESS; i++) {
      const { error } = await grpcExport(svc.otlpGrpcAddress!, sampleRequest(1), { 'x-api-key': wrongKey(), 'x-forwarded-for': scanner });
      expect(error?.code).toBe(grpc.status.UNAUTHENTICATED);
    }
    const grpcAnswer = await grpcExport(svc.otlpGrpcAddress!, sampleRequest(1), { 'x-api-key': wrongKey(), 'x-forwarded-for': scanner });
    expect(grpcAnswer.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(Number(grpcAnswer.error?.metadata.get('retry-after')[0])).toBeGreaterThanOrEqual(1);

    for (const base of [svc.otlpHttpUrl!, svc.apiUrl!]) {
      const res = await postTraces(base, sampleRequest(1), { project: null, headers: { 'x-api-key': wrongKey(), 'x-forwarded-for': scanner } });
      expect(res.status, base).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(decodeStatus(new Uint8Array(await res.arrayBuffer()))).toMatchObject({
        code: grpc.status.RESOURCE_EXHAUSTED,
        message: 'Too many failed authentication attempts',
      });
    }
    const metrics = await fetch(`${svc.apiUrl}/metrics`, { headers: { 'x-api-key': wrongKey(), 'x-forwarded-for': scanner } });
    await expectThrottled(metrics);
    // A wrong scrape token from elsewhere is a failure like any other, said as a plain 401.
    const other = newAddress();
    const tokens = await statuses(PER_ADDRESS, () =>
      fetch(`${svc.apiUrl}/metrics`, { headers: { authorization: 'Bearer not-the-token', 'x-forwarded-for': other } }),
    );
    expect(tokens).toEqual(Array(PER_ADDRESS).fill(401));
    await expectThrottled(await fetch(`${svc.apiUrl}/metrics`, { headers: { authorization: 'Bearer not-the-token', 'x-forwarded-for': other } }));
  });

  it('believes only the last X-Forwarded-For entry behind one proxy: a client cannot pick the address it is counted as', async () => {
    await roomInWindow();
    const real = newAddress();
    for (let i = 0; i < PER_ADDRESS; i++) {
      // What the client wrote (a new address each time) is left of what the proxy appended.
      expect((await call('/api/traces', wrongKey(), `${newAddress()}, ${real}`)).status).toBe(401);
    }
    await expectThrottled(await call('/api/traces', wrongKey(), `${newAddress()}, ${real}`));
  });
});

describe('per key prefix', () => {
  it(`answers 429 to wrong keys with a known prefix after ${PER_PREFIX} a minute from any address, and never locks the key itself out`, async () => {
    await roomInWindow();
    const key = await svc.keyFor('throttle-prefix');
    const spray = () => call('/api/traces', withPrefixOf(key), newAddress());
    expect(await statuses(PER_PREFIX, spray)).toEqual(Array(PER_PREFIX).fill(401));
    await expectThrottled(await spray());
    await expectThrottled(await spray());
    // The key of that prefix, from an address that never used it: checked, and it passes.
    expect((await call('/api/traces', key, newAddress(), { headers: { 'x-project-id': 'throttle-prefix' } })).status).toBe(200);
  });
});

describe('across processes', () => {
  /** A second API process's authenticator: its own throttle and key cache, the same PostgreSQL. */
  function secondProcess(): Authenticator {
    const logger = createLogger('silent');
    const throttle = createAuthThrottle({ store: metadata.authFailures, limits: { perAddress: PER_ADDRESS, perPrefix: PER_PREFIX }, logger });
    const auth = createAuthenticator({ mode: 'required', keys: metadata.keys, cacheTtlMs: 1000, throttle });
    const close = auth.close.bind(auth);
    return Object.assign(auth, { close: async () => (await close(), await throttle.close()) });
  }

  it('an address throttled by one process is throttled by the other within a second or two; other addresses are not', async () => {
    await roomInWindow();
    const other = secondProcess();
    try {
      const attacker = newAddress();
      const key = await svc.keyFor('throttle-two');
      expect(await statuses(PER_ADDRESS, () => call('/api/traces', wrongKey(), attacker))).toEqual(Array(PER_ADDRESS).fill(401));
      const started = Date.now();
      // Within about one sync the other process answers 429 for that address (its own tries count too)...
      await eventually(
        () =>
          expect(other.authenticate({ 'x-api-key': wrongKey() }, {}, undefined, attacker)).rejects.toMatchObject({
            status: 429,
            message: 'Too many failed authentication attempts',
          }),
        10_000,
      );
      expect(Date.now() - started).toBeLessThan(5000);
      // ...without checking what comes from there: a valid key it never saw from that address waits too,
      await expect(other.authenticate({ 'x-api-key': key }, {}, undefined, attacker)).rejects.toMatchObject({ status: 429 });
      // and passes from anywhere else.
      expect((await other.authenticate({ 'x-api-key': key }, {}, undefined, newAddress())).projectId).toBe('throttle-two');
    } finally {
      await other.close();
    }
  });

  it('failures counted by the other process throttle a prefix here; the valid key still passes', async () => {
    await roomInWindow();
    const other = secondProcess();
    try {
      const key = await svc.keyFor('throttle-two-prefix');
      for (let i = 0; i < PER_PREFIX; i++) {
        await expect(other.authenticate({ 'x-api-key': withPrefixOf(key) }, {}, undefined, newAddress())).rejects.toMatchObject({ status: 401 });
      }
      await eventually(async () => expect((await call('/api/traces', withPrefixOf(key), newAddress())).status).toBe(429), 10_000);
      expect((await call('/api/traces', key, newAddress(), { headers: { 'x-project-id': 'throttle-two-prefix' } })).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('audit', () => {
  it('records an address crossing its limit once, as auth.throttled, without the keys tried', async () => {
    await roomInWindow();
    const attacker = newAddress();
    const tried = Array.from({ length: PER_ADDRESS + 2 }, wrongKey);
    for (const key of tried) await (await call('/api/traces', key, attacker)).arrayBuffer();
    const entries = await eventually(async () => {
      const res = await call(`/api/audit?action=auth.throttled`, svc.apiKey!, newAddress());
      const page = (await res.json()) as { entries: Array<{ target: string; client_address: string; details: Record<string, unknown> }> };
      const mine = page.entries.filter((e) => e.target === attacker);
      expect(mine.length).toBe(1);
      return mine;
    }, 5000);
    expect(entries[0]).toMatchObject({ client_address: attacker, details: { kind: 'address', per_minute: PER_ADDRESS } });
    const text = JSON.stringify(entries);
    for (const key of tried) expect(text).not.toContain(key.slice(8));
  });
});
