import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/server.js';
import { mulberry32 } from '../../core/evals/statistics.js';

/**
 * Hostile bodies on every write route: random and adversarial JSON (huge strings, wrong types,
 * prototype-pollution keys, SQL meta-characters, lone surrogates, NUL, absurd numbers and dates),
 * bodies that are not JSON or not UTF-8. Always a 4xx, never a 5xx (the one exception: 503 from
 * a run route, whose workflow engine is deliberately absent here), nothing lands in another
 * project, and nothing pollutes the process.
 */

let svc: TestApi;
const UUID = '00000000-0000-4000-8000-00000000abcd';

beforeAll(async () => {
  svc = await startTestApi({ MAX_BODY_BYTES: String(4 * 1024 * 1024) });
});

afterAll(async () => {
  await svc?.stop();
});

const ROUTES: Array<[method: string, path: string]> = [
  ['POST', '/api/traces/ingest'],
  ['POST', '/api/spans'],
  ['POST', '/api/scores'],
  ['POST', '/api/agents'],
  ['PUT', '/api/agents/fuzz-agent'],
  ['POST', '/api/suites'],
  ['PUT', `/api/suites/${UUID}`],
  ['POST', '/api/runs'],
  ['POST', '/api/evals/runs'],
  ['POST', `/api/runs/${UUID}/control`],
  ['POST', '/api/compare'],
  ['POST', '/api/evals/compare'],
  ['POST', '/api/prompts'],
  ['PUT', '/api/prompts/fuzz-prompt'],
  ['POST', '/api/prompts/fuzz-prompt/render'],
  ['POST', '/api/prompts/fuzz-prompt/labels'],
  ['POST', '/api/feedback'],
  ['POST', '/api/feedback/comparisons'],
  ['POST', '/api/queues'],
  ['POST', '/api/alerts/rules'],
  ['POST', '/api/projects'],
  ['POST', '/api/projects/fuzz-a/keys'],
  ['PUT', '/api/projects/fuzz-a/rate-limits'],
];

const FIELDS = [
  'name',
  'type',
  'template',
  'messages',
  'trace_id',
  'span_id',
  'value',
  'agentId',
  'agent_id',
  'dataset',
  'scorers',
  'cases',
  'metric',
  'threshold',
  'operator',
  'severity',
  'id',
  'role',
  'env',
  'spans',
  'start_time',
  'end_time',
  'duration_ms',
  'input',
  'output',
  'expected',
  'config',
  'action',
  'labels',
  'label',
  'version',
  'variables',
  'preference',
  'correction',
  'rating',
  'prompt',
  'chosen',
  'rejected',
  'baseline_run_id',
  'candidate_run_id',
  'filter',
  'score_names',
  'trace_ids',
  'webhook_url',
  'window_seconds',
  'endpoint',
  'headers',
  'suite_name',
  'query',
  'ingest',
  'eval_runs',
  '__proto__',
  'constructor',
  'prototype',
];

/** A small deterministic PRNG, so a failure can be replayed. */
const rng = mulberry32;

function hostileValue(r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * 22);
  switch (pick) {
    case 0:
      return 'x'.repeat(200_000);
    case 1:
      return 'a\ud800b\udfffc';
    case 2:
      return 'nul\u0000byte';
    case 3:
      return "'; DROP TABLE projects; --";
    case 4:
      return 1e308;
    case 5:
      return -1;
    case 6:
      return 9007199254740993;
    case 7:
      return 4e15;
    case 8:
      return '275760-09-13T00:00:00.001Z';
    case 9:
      return '-271821-04-20T00:00:00Z';
    case 10:
      return null;
    case 11:
      return true;
    case 12:
      return [];
    case 13:
      return {};
    case 14:
      return '{{input}}{{__proto__}}';
    case 15:
      return '../../etc/passwd';
    case 16:
      return 'http://169.254.169.254/latest/meta-data/';
    case 17:
      return '0';
    case 18:
      return depth < 3 ? Array.from({ length: 1 + Math.floor(r() * 3) }, () => hostileValue(r, depth + 1)) : 'deep';
    case 19:
      return depth < 3 ? hostileObject(r, depth + 1) : 'deep';
    case 20:
      return '😀'.repeat(1000);
    default:
      return UUID;
  }
}

function hostileObject(r: () => number, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = 1 + Math.floor(r() * 6);
  for (let i = 0; i < n; i++)
    Object.defineProperty(out, FIELDS[Math.floor(r() * FIELDS.length)], {
      value: hostileValue(r, depth),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  return out;
}

/** Raw bodies that are not valid JSON objects, or not UTF-8 at all. */
const RAW: Array<string | Uint8Array> = [
  '',
  'null',
  '[]',
  '"text"',
  '{',
  '{"a":',
  '1e999999',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
  Uint8Array.from([0xff, 0xfe, 0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
];

/** `{"name":"<a UTF-8-encoded lone surrogate>"}`: not valid UTF-8, decoded with U+FFFD in its place and stored safely, or refused. */
const LONE_SURROGATE_UTF8 = Uint8Array.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]);
/** The same as JSON escapes. */
const LONE_SURROGATE_ESCAPES = `{"name":"${'\\ud800'.repeat(100)}"}`;

/** Creating a project takes a server admin (the bootstrap key of the default project); every other route a project admin of fuzz-a. */
const callerOf = (path: string) => (path === '/api/projects' ? svc.defaultProjectId : 'fuzz-a');

async function send(method: string, path: string, body: string | Uint8Array): Promise<number> {
  const res = await svc.api(path, {
    method,
    project: callerOf(path),
    body: typeof body === 'string' ? body : Buffer.from(body),
    headers: { 'content-type': 'application/json' },
  });
  await res.arrayBuffer();
  return res.status;
}

function acceptable(status: number, path: string): boolean {
  if (status < 500) return true;
  return status === 503 && (path === '/api/runs' || path === '/api/evals/runs');
}

describe('hostile bodies on every write route', () => {
  it('answers raw junk and non-UTF-8 with 4xx (or stores a lossy-decoded body safely)', async () => {
    for (const [method, path] of ROUTES) {
      for (const raw of RAW) {
        const status = await send(method, path, raw);
        expect(status, `${method} ${path} ${typeof raw === 'string' ? raw.slice(0, 40) : 'bytes'}`).toBeGreaterThanOrEqual(400);
        expect(acceptable(status, path), `${method} ${path} -> ${status}`).toBe(true);
        // The body reached validation: no route refuses these callers before reading it.
        expect([401, 403], `${method} ${path} was refused for its caller, not its body`).not.toContain(status);
      }
      for (const body of [LONE_SURROGATE_UTF8, LONE_SURROGATE_ESCAPES]) {
        const status = await send(method, path, body);
        expect(acceptable(status, path), `${method} ${path} lone surrogate -> ${status}`).toBe(true);
      }
    }
  });

  it('answers random hostile objects with 4xx (or a success), concurrently with valid calls that all succeed', async () => {
    const r = rng(20261123);
    const failures: string[] = [];
    for (const [method, path] of ROUTES) {
      const bodies = Array.from({ length: 25 }, () => JSON.stringify(hostileObject(r)));
      const valid = Array.from({ length: 5 }, () => svc.api('/api/traces', { project: 'fuzz-a' }));
      const statuses = await Promise.all(bodies.map((b) => send(method, path, b)));
      statuses.forEach((status, i) => {
        if (!acceptable(status, path)) failures.push(`${method} ${path} -> ${status}: ${bodies[i].slice(0, 300)}`);
      });
      for (const res of await Promise.all(valid)) expect(res.status).toBe(200);
    }
    expect(failures).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('left nothing in another project', async () => {
    for (const path of ['/api/traces', '/api/agents', '/api/suites', '/api/prompts', '/api/feedback', '/api/queues', '/api/alerts/rules', '/api/runs']) {
      const res = await svc.api(path, { project: 'fuzz-b' });
      expect(res.status, path).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      const lists = Object.values(body).filter(Array.isArray);
      expect(lists.length, `${path} ${JSON.stringify(body).slice(0, 200)}`).toBeGreaterThan(0);
      for (const list of lists) expect(list, path).toEqual([]);
    }
  });
});
