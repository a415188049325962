import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../../core/audit/audit-log.js';
import type { AuditEntryView } from '../../core/model/audit.js';
import { createAuditStore } from '../../core/store/postgres/audit-store.js';
import { createPool, type MetadataStore } from '../../core/store/postgres/metadata-store.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { startTestApi, type TestApi } from '../helpers/server.js';

/**
 * The audit log (docs/security.md, "Audit log"): every security-relevant action of the API
 * leaves one entry saying who, what, to what, when and from where, and never a secret;
 * GET /api/audit shows a project's admin their project's entries and a server admin all of
 * them, filtered and paged; an entry the store refuses is logged whole; old entries are pruned.
 * The real service (PostgreSQL, chDB).
 */

let svc: TestApi;
let metadata: MetadataStore;
const UA = 'audit-test/1.0';

beforeAll(async () => {
  svc = await startTestApi();
  metadata = openServiceMetadata(svc.dataDir);
});

afterAll(async () => {
  await metadata?.close();
  await svc?.stop();
});

interface Page {
  entries: AuditEntryView[];
  next_cursor: string | null;
}

async function ok<T = Record<string, unknown>>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text ? JSON.parse(text) : {}) as T;
}

/** As `project`'s admin (its first key), with a user agent of our own. */
function as(project: string, path: string, init: RequestInit & { json?: unknown } = {}) {
  return svc.api(path, { ...init, project, headers: { 'user-agent': UA, ...(init.headers as Record<string, string>) } });
}

/** Every entry the bootstrap key (a server admin) reads with `query`, over all pages. */
async function allEntries(query = ''): Promise<AuditEntryView[]> {
  const out: AuditEntryView[] = [];
  let cursor: string | null = null;
  do {
    const sep = query ? '&' : '';
    const page: Page = await ok<Page>(
      await svc.api(`/api/audit?${query}${sep}limit=100${cursor ? `&cursor=${cursor}` : ''}`, { project: null, key: svc.apiKey! }),
    );
    out.push(...page.entries);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

describe('what is recorded', () => {
  it('keys created and revoked, rate limits changed, projects created: who, what, from where, without the secret', async () => {
    const admin = await svc.keyFor('audit-a');
    const made = await ok<{ id: string; key: string; name: string; prefix: string }>(
      await as('audit-a', '/api/projects/audit-a/keys', { method: 'POST', json: { name: 'ci', role: 'member' } }),
      201,
    );
    await ok(await as('audit-a', `/api/projects/audit-a/keys/${made.id}`, { method: 'DELETE' }), 204);
    await ok(await as('audit-a', '/api/projects/audit-a/rate-limits', { method: 'PUT', json: { query: 321 } }));

    const entries = await allEntries('project=audit-a');
    const adminKeyId = entries.find((e) => e.action === 'key.created' && e.details.name === 'first admin key')!.target;
    expect(entries.find((e) => e.action === 'project.created')).toMatchObject({
      actor: { kind: 'api_key', name: 'bootstrap admin key' },
      project_id: 'audit-a',
      target: 'audit-a',
      details: { name: 'audit-a' },
      client_address: '127.0.0.1',
    });
    const created = entries.find((e) => e.action === 'key.created' && e.target === made.id)!;
    expect(created).toMatchObject({
      actor: { kind: 'api_key', id: adminKeyId, name: 'first admin key' },
      project_id: 'audit-a',
      details: { name: 'ci', role: 'member', prefix: made.prefix, server_admin: false },
      client_address: '127.0.0.1',
      user_agent: UA,
    });
    expect(entries.find((e) => e.action === 'key.revoked')).toMatchObject({ target: made.id, actor: { id: adminKeyId }, details: { name: 'ci' } });
    expect(entries.find((e) => e.action === 'rate_limits.changed')).toMatchObject({ details: { requested: { query: 321 }, after: { query: 321 } } });
    expect(Date.parse(created.at)).toBeGreaterThan(Date.now() - 60_000);
    expect(JSON.stringify(entries)).not.toContain(made.key.slice(8));
    expect(JSON.stringify(entries)).not.toContain(admin.slice(8));
  });

  it('agents and custom scorers created, re-pointed and deleted, alert webhooks changed: endpoints by origin and fingerprint, never a header value or a webhook path', async () => {
    await svc.keyFor('audit-b');
    const agent = await ok<{ id: string }>(
      await as('audit-b', '/api/agents', {
        method: 'POST',
        json: { name: 'bot', endpoint: 'http://127.0.0.1:9/v1/agent?token=query-secret', headers: { authorization: 'Bearer header-secret' } },
      }),
      201,
    );
    await ok(await as('audit-b', `/api/agents/${agent.id}`, { method: 'PUT', json: { name: 'bot', endpoint: 'http://127.0.0.2:9/v2/agent' } }));
    // Same endpoint again: nothing to record.
    await ok(
      await as('audit-b', `/api/agents/${agent.id}`, { method: 'PUT', json: { name: 'bot', endpoint: 'http://127.0.0.2:9/v2/agent', description: 'd' } }),
    );
    await ok(await as('audit-b', `/api/agents/${agent.id}`, { method: 'DELETE' }), 204);
    const scorer = await ok<{ id: string }>(
      await as('audit-b', '/api/scorers', {
        method: 'POST',
        json: { name: 'judge-x', endpoint: 'http://127.0.0.1:9/score', headers: { 'x-api-key': 'scorer-secret' } },
      }),
      201,
    );
    await ok(await as('audit-b', `/api/scorers/${scorer.id}`, { method: 'DELETE' }), 204);
    const webhook = 'https://hooks.example.com/services/T000/B000/webhook-secret-path';
    const rule = await ok<{ id: string }>(
      await as('audit-b', '/api/alerts/rules', {
        method: 'POST',
        json: { name: 'errors', metric: 'error_rate', threshold: 0.5, operator: 'gt', severity: 'info', webhook_url: webhook },
      }),
      201,
    );
    await ok(await as('audit-b', `/api/alerts/rules/${rule.id}`, { method: 'PUT', json: { threshold: 0.6 } }));
    await ok(await as('audit-b', `/api/alerts/rules/${rule.id}`, { method: 'DELETE' }), 204);

    const entries = (await allEntries('project=audit-b')).reverse();
    expect(entries.map((e) => e.action).filter((a) => !a.startsWith('project.') && !a.startsWith('key.'))).toEqual([
      'agent.created',
      'agent.endpoint_changed',
      'agent.deleted',
      'scorer.created',
      'scorer.deleted',
      'alert_webhook.changed',
      'alert_webhook.changed',
    ]);
    const moved = entries.find((e) => e.action === 'agent.endpoint_changed')!;
    expect(moved).toMatchObject({
      target: agent.id,
      details: {
        name: 'bot',
        from: { origin: 'http://127.0.0.1:9' },
        to: { origin: 'http://127.0.0.2:9' },
        header_names: [],
        headers_dropped: ['authorization'],
      },
    });
    expect((moved.details.from as { fingerprint: string }).fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(entries.find((e) => e.action === 'agent.created')?.details).toMatchObject({ header_names: ['authorization'] });
    const hooks = entries.filter((e) => e.action === 'alert_webhook.changed');
    expect(hooks[0].details).toMatchObject({ rule: 'errors', from: null, to: { origin: 'https://hooks.example.com' } });
    expect(hooks[1].details).toMatchObject({ from: { origin: 'https://hooks.example.com' }, to: null });
    const text = JSON.stringify(entries);
    for (const secret of ['query-secret', 'header-secret', 'scorer-secret', 'webhook-secret-path', '/v1/agent', '/services/'])
      expect(text).not.toContain(secret);
  });
});

describe('GET /api/audit', () => {
  it("shows a project's admin that project's entries only, a server admin all of them; members and viewers get 403", async () => {
    const adminC = await svc.keyFor('audit-c');
    await svc.keyFor('audit-d');
    await ok(await as('audit-d', '/api/projects/audit-d/keys', { method: 'POST', json: { name: 'd-key' } }), 201);
    const mine = await ok<Page>(await svc.api('/api/audit?limit=1000', { project: 'audit-c', key: adminC }));
    expect(mine.entries.length).toBeGreaterThan(0);
    expect(new Set(mine.entries.map((e) => e.project_id))).toEqual(new Set(['audit-c']));
    const all = await allEntries();
    expect(all.map((e) => e.project_id)).toEqual(expect.arrayContaining(['audit-c', 'audit-d']));

    const member = await ok<{ key: string }>(await as('audit-c', '/api/projects/audit-c/keys', { method: 'POST', json: { name: 'm', role: 'member' } }), 201);
    expect(await ok(await svc.api('/api/audit', { project: 'audit-c', key: member.key }), 403)).toMatchObject({ details: 'missing permission projects:admin' });
  });

  it('filters by action (or its group), actor, project and time, and pages newest first with a cursor', async () => {
    await svc.keyFor('audit-e');
    for (const name of ['k1', 'k2', 'k3', 'k4', 'k5']) await ok(await as('audit-e', '/api/projects/audit-e/keys', { method: 'POST', json: { name } }), 201);
    const keyEntries = await allEntries('project=audit-e&action=key.created');
    expect(keyEntries.map((e) => e.details.name)).toEqual(['k5', 'k4', 'k3', 'k2', 'k1', 'first admin key']);
    expect((await allEntries('project=audit-e&action=key')).every((e) => e.action.startsWith('key.'))).toBe(true);
    const actor = keyEntries[0].actor.id;
    expect((await allEntries(`project=audit-e&actor=${actor}`)).map((e) => e.details.name)).toEqual(['k5', 'k4', 'k3', 'k2', 'k1']);

    // since k3 (included) until k5 (excluded); each key was its own request, milliseconds apart.
    const since = encodeURIComponent(keyEntries[2].at);
    const until = encodeURIComponent(keyEntries[0].at);
    expect((await allEntries(`project=audit-e&action=key.created&since=${since}&until=${until}`)).map((e) => e.details.name)).toEqual(['k4', 'k3']);

    // Pages of two: every entry once, newest first.
    const seen: AuditEntryView[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await ok<Page>(
        await svc.api(`/api/audit?project=audit-e&action=key.created&limit=2${cursor ? `&cursor=${cursor}` : ''}`, { project: null, key: svc.apiKey! }),
      );
      expect(page.entries.length).toBeLessThanOrEqual(2);
      seen.push(...page.entries);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen.map((e) => e.id)).toEqual(keyEntries.map((e) => e.id));

    for (const bad of ['action=Key Created', 'since=yesterday', 'cursor=not-a-cursor', 'limit=0']) {
      expect((await svc.api(`/api/audit?${bad.replace(' ', '%20')}`, { project: null, key: svc.apiKey! })).status, bad).toBe(422);
    }
  });
});

describe('keeping the record', () => {
  it('an entry the store refuses is written whole to the log at error, and the caller goes on', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    const pool = createPool('postgres://postgres:x@127.0.0.1:1/postgres');
    try {
      const audit = createAuditLog(createAuditStore(pool), pino({ level: 'info' }, sink));
      await audit.record({
        actor: { kind: 'api_key', id: 'key-1', name: 'ci' },
        action: 'key.revoked',
        projectId: 'p',
        target: 'key-2',
        details: { name: 'old', api_key: 'ae_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
        client: { address: '10.0.0.1' },
      });
      const logged = lines
        .map((l) => JSON.parse(l) as { level: number; msg: string; audit: Record<string, unknown> })
        .find((l) => l.msg.startsWith('audit entry not stored'));
      expect(logged?.level).toBe(50);
      expect(logged?.audit).toMatchObject({
        action: 'key.revoked',
        actorId: 'key-1',
        projectId: 'p',
        target: 'key-2',
        clientAddress: '10.0.0.1',
        details: { name: 'old', api_key: '[redacted]' },
      });
      expect(lines.join('')).not.toContain('AAAAAAAAAAAAAAAA');
    } finally {
      await pool.end();
    }
  });

  it('drops entries older than the retention', async () => {
    const audit = createAuditLog(metadata.audit, pino({ level: 'silent' }));
    await audit.record({ actor: { kind: 'system', id: 'system' }, action: 'data.deleted', projectId: 'audit-old', target: 'old', details: {} });
    await audit.record({ actor: { kind: 'system', id: 'system' }, action: 'data.deleted', projectId: 'audit-old', target: 'recent', details: {} });
    await metadata.pool.query(`UPDATE audit_log SET at = now() - interval '400 days' WHERE project_id = 'audit-old' AND target = 'old'`);
    expect(await audit.prune(365)).toBeGreaterThanOrEqual(1);
    expect((await allEntries('project=audit-old')).map((e) => e.target)).toEqual(['recent']);
    expect(await audit.prune(0)).toBe(0);
  });
});
