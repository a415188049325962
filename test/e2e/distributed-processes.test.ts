import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.js';
import type { CaseResultView, RunView } from '../../core/model/eval-run.js';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../core/store/postgres/embedded-postgres.js';
import { startDevServer, type DevServer } from '../../workflows/engine/dev-server.js';
import { encodeRequest, postTraces } from '../fixtures/otlp/harness.js';
import { callsPerTurn, conversationAgent } from '../helpers/conversation-agents.js';
import { startKafka, type KafkaBroker } from '../helpers/kafka.js';
import { exited, forEachConcurrently, pollUntil, removeDir, sleep, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { makeDataDir } from '../helpers/server.js';
import { startTestAgent, type AgentRequest, type TestAgent } from '../helpers/test-agent.js';

/**
 * Issue 13's distributed form, split into OS processes on loopback, with nothing in memory
 * standing in for a dependency (docs/deployment.md, "What the split-process test proves"):
 *
 * - a Kafka broker (scripts/kafka.sh), a standalone PostgreSQL server (embedded-postgres's
 *   binaries run as their own process; every role reaches it through DATABASE_URL) and the
 *   Temporal dev server (scripts/temporal.sh's CLI; reached through TEMPORAL_ADDRESS);
 * - `serve --roles ingester,api` (S): the one process that owns chDB, sharing it with the other
 *   roles over ClickHouse's HTTP interface (the gateway: CLICKHOUSE_URL for everyone else);
 * - two `serve --roles collector` (C1, C2) and one or two `serve --roles worker` (W, W2).
 *
 * API keys, rate-limit counters, runs and online-rule state live in the shared PostgreSQL; spans
 * go receivers -> Kafka -> S's ingester -> chDB.
 */

const logger = createLogger('silent');
const GATEWAY_PASSWORD = randomBytes(12).toString('hex');
const dirs: string[] = [];
const dir = (prefix: string) => {
  const d = makeDataDir(prefix);
  dirs.push(d);
  return d;
};

let broker: KafkaBroker;
let postgres: EmbeddedPostgresHandle;
let temporal: DevServer;
let shared: Record<string, string>;
let S: ServiceProcess;
let C1: ServiceProcess | undefined;
let C2: ServiceProcess;
let W: ServiceProcess | undefined;
let W2: ServiceProcess | undefined;
const stopped: ServiceProcess[] = [];
const workerDir = dir('agent-eval-dist-w-');
let adminKey: string;

/** The gateway's address with its credentials, as an operator would set CLICKHOUSE_URL. */
function clickhouseUrl(gateway: string): string {
  const url = new URL(gateway);
  url.username = 'default';
  url.password = GATEWAY_PASSWORD;
  return url.toString();
}

const spawnRole = (roles: string, dataDir: string, extra: Record<string, string> = {}) =>
  spawnServiceProcess(dataDir, { ...shared, AGENT_EVAL_ROLES: roles, ...extra });

beforeAll(async () => {
  const cacheDir = process.env.AGENT_EVAL_CACHE_DIR ?? `${process.env.HOME}/.cache/agent-eval`;
  [broker, postgres, temporal] = await Promise.all([
    startKafka(),
    startEmbeddedPostgres(dir('agent-eval-dist-pg-'), logger),
    startDevServer({ dataDir: dir('agent-eval-dist-temporal-'), cacheDir, namespace: 'agent-eval-dist', logger }),
  ]);
  shared = {
    AUTH_MODE: 'required',
    KAFKA_BROKERS: broker.brokers.join(','),
    KAFKA_TOPIC: 'dist.spans',
    KAFKA_DLQ_TOPIC: 'dist.spans.dlq',
    KAFKA_GROUP_ID: 'dist-ingester',
    DATABASE_URL: postgres.connectionString,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: 'agent-eval-dist',
    EVAL_RETRY_TIME_SCALE: '0.001',
    ONLINE_EVAL_TICK_MS: '200',
    ONLINE_EVAL_LEASE_MS: '5000',
  };
  // S first: it owns chDB, applies the migrations and creates the first admin key.
  const sDir = dir('agent-eval-dist-s-');
  S = await spawnRole('ingester,api', sDir, { CLICKHOUSE_GATEWAY_PORT: '0', CLICKHOUSE_GATEWAY_PASSWORD: GATEWAY_PASSWORD });
  expect(S.clickhouseGatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
  adminKey = (JSON.parse(fs.readFileSync(path.join(sDir, 'credentials.json'), 'utf8')) as { api_key: string }).api_key;
  shared.CLICKHOUSE_URL = clickhouseUrl(S.clickhouseGatewayUrl!);
  const started = await Promise.allSettled([
    spawnRole('collector', dir('agent-eval-dist-c1-')),
    spawnRole('collector', dir('agent-eval-dist-c2-')),
    spawnRole('worker', workerDir),
  ]);
  const [c1, c2, w] = started.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
  [C1, C2, W] = [c1, c2!, w];
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}, 900_000);

afterAll(async () => {
  await Promise.all([C1, C2, W, W2, ...stopped].map((p) => stopProcess(p)));
  await stopProcess(S);
  await Promise.allSettled([temporal?.stop(), postgres?.stop(), broker?.stop()]);
  for (const d of dirs) removeDir(d);
});

// ---------------------------------------------------------------------------------------------

async function api<T>(key: string, pathname: string, init: { method?: string; json?: unknown } = {}, want = 200): Promise<T> {
  const res = await fetch(`${S.apiUrl}${pathname}`, {
    method: init.method ?? 'GET',
    headers: { 'x-api-key': key, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  expect(res.status, `${init.method ?? 'GET'} ${pathname}: ${text.slice(0, 500)}`).toBe(want);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A new project through S's API (stored in the shared PostgreSQL) and its admin key. */
async function newProject(id: string): Promise<string> {
  const created = await api<{ api_key: { key: string } }>(adminKey, '/api/projects', { method: 'POST', json: { id, name: id } }, 201);
  return created.api_key.key;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

interface SentTrace {
  traceId: string;
  spanIds: string[];
}

/** An OTLP/HTTP protobuf export of `traces` traces of `spans` spans each (a root and its children). */
function otlpExport(traces: number, spans: number): { body: Buffer; sent: SentTrace[] } {
  const now = BigInt(Date.now()) * 1_000_000n;
  const sent: SentTrace[] = [];
  const otlpSpans = [];
  for (let t = 0; t < traces; t++) {
    const traceId = hex(16);
    const spanIds = Array.from({ length: spans }, () => hex(8));
    sent.push({ traceId, spanIds });
    for (const [i, spanId] of spanIds.entries()) {
      otlpSpans.push({
        traceId: Buffer.from(traceId, 'hex'),
        spanId: Buffer.from(spanId, 'hex'),
        ...(i === 0 ? {} : { parentSpanId: Buffer.from(spanIds[0], 'hex') }),
        name: i === 0 ? 'agent.run' : `tool.call.${i}`,
        startTimeUnixNano: String(now - 500_000_000n),
        endTimeUnixNano: String(now),
        attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: i === 0 ? 'invoke_agent' : 'execute_tool' } }],
      });
    }
  }
  return {
    body: encodeRequest({
      resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'dist-agent' } }] }, scopeSpans: [{ spans: otlpSpans }] }],
    }),
    sent,
  };
}

/** Status of one export to a collector with this key; 0 when the connection failed (a dead collector). */
async function exportTo(collector: ServiceProcess, key: string, body: Buffer): Promise<number> {
  try {
    const res = await postTraces(collector.otlpHttpUrl!, body, { project: null, headers: { 'x-api-key': key } });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

interface TraceDetail {
  trace_id: string;
  span_count: number;
  spans: Array<{ span_id: string }>;
}

async function readTrace(key: string, traceId: string): Promise<TraceDetail | undefined> {
  const res = await fetch(`${S.apiUrl}/api/traces/${traceId}`, { headers: { 'x-api-key': key } });
  if (res.status === 404) {
    await res.body?.cancel();
    return undefined;
  }
  expect(res.status).toBe(200);
  return (await res.json()) as TraceDetail;
}

/** Per trace, the stored rows and distinct ids of a project's scores of this name, read from chDB through the gateway. */
async function storedScores(project: string, name: string): Promise<Map<string, { rows: number; ids: number }>> {
  const ch = createClient({ url: shared.CLICKHOUSE_URL });
  try {
    const rs = await ch.query({
      query:
        'SELECT trace_id, count() AS rows, uniqExact(score_id) AS ids FROM agent_eval.scores WHERE project_id = {project:String} AND name = {name:String} GROUP BY trace_id',
      query_params: { project, name },
      format: 'JSONEachRow',
    });
    const rows = await rs.json<{ trace_id: string; rows: string; ids: string }>();
    return new Map(rows.map((r) => [r.trace_id, { rows: Number(r.rows), ids: Number(r.ids) }]));
  } finally {
    await ch.close();
  }
}

/** Milliseconds left in the current fixed one-minute rate-limit window. */
const windowLeftMs = () => 60_000 - (Date.now() % 60_000);

// ---------------------------------------------------------------------------------------------

describe('the distributed form as separate processes', () => {
  it('every role answers /api/health on its own port, and the collectors and the worker use the shared stores', async () => {
    for (const p of [C1!, C2, W!]) {
      expect(p.apiUrl).toBeUndefined();
      const res = await fetch(`${p.healthUrl}/api/health`);
      const health = (await res.json()) as { status: string; services: Record<string, string> };
      expect(res.status, p.roles.join()).toBe(200);
      expect(health.status).toBe('healthy');
      expect(health.services).toMatchObject({ analytical_store: 'ok', metadata_store: 'ok' });
    }
    const s = (await (await fetch(`${S.apiUrl}/api/health`)).json()) as { status: string; services: Record<string, string> };
    expect(s).toMatchObject({ status: 'healthy', services: { analytical_store: 'ok', metadata_store: 'ok', workflow_engine: 'ok', streaming_buffer: 'ok' } });
    // Only S created a key: the others found the shared PostgreSQL already had one.
    for (const p of [C1!, C2, W!]) expect(p.output()).not.toContain('created the first admin API key');
  });

  it('holds a project rate limit across both collectors (counters shared through PostgreSQL)', async () => {
    const key = await newProject('dist-rate');
    const LIMIT = 30;
    await api(key, '/api/projects/dist-rate/rate-limits', { method: 'PUT', json: { ingest: LIMIT } });
    // The whole exchange inside one fixed window.
    if (windowLeftMs() < 25_000) await sleep(windowLeftMs() + 200);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push(await exportTo(C1!, key, otlpExport(1, 1).body));
    expect(statuses).toEqual(Array(20).fill(200));
    // One sync interval (1 s) later C2 knows what C1 accepted: only the rest of the limit is left.
    await sleep(2500);
    const second: number[] = [];
    for (let i = 0; i < 20; i++) second.push(await exportTo(C2, key, otlpExport(1, 1).body));
    expect(second.filter((s) => s === 200)).toHaveLength(LIMIT - 20);
    expect(second.filter((s) => s === 429)).toHaveLength(20 - (LIMIT - 20));
    // And back on C1: the limit is spent for both.
    await sleep(2500);
    expect(await exportTo(C1!, key, otlpExport(1, 1).body)).toBe(429);
  }, 120_000);

  it('kill -9 of one collector mid-load: every acknowledged span is stored exactly once and readable through the API', async () => {
    const key = await newProject('dist-load');
    const EXPORTS = 240;
    const acked = new Map<string, SentTrace>();
    const unacked = new Map<string, SentTrace>();
    let c1Alive = true;
    let done = 0;
    let ackedOnC1AfterKill = 0;

    const sender = forEachConcurrently(EXPORTS, 6, async (i) => {
      const { body, sent } = otlpExport(5, 4);
      const target = i % 2 === 0 && c1Alive ? C1! : C2;
      const wasAlive = target === C1 ? c1Alive : true;
      const status = await exportTo(target, key, body);
      for (const t of sent) (status === 200 ? acked : unacked).set(t.traceId, t);
      if (status === 200 && target === C1 && !wasAlive) ackedOnC1AfterKill++;
      done++;
      await sleep(20);
    });
    await pollUntil('a third of the exports answered', () => Promise.resolve(done >= EXPORTS / 3 ? true : undefined), { timeoutMs: 120_000, intervalMs: 10 });
    const killed = C1!;
    c1Alive = false;
    killed.child.kill('SIGKILL');
    expect(await exited(killed.child, 10_000)).toEqual({ code: null, signal: 'SIGKILL' });
    stopped.push(killed);
    C1 = undefined;
    await sender;

    expect(ackedOnC1AfterKill).toBe(0);
    // Exports to C1 in flight at the kill may have failed; everything else was acknowledged.
    expect(acked.size).toBeGreaterThanOrEqual(EXPORTS * 5 - 6 * 5);
    console.info(`distributed: ${acked.size} traces acknowledged, ${unacked.size} not (in flight to the killed collector)`);

    const entries = [...acked.values()];
    await pollUntil(
      'every acknowledged trace readable',
      async () => {
        const list = (await api<{ total: number }>(key, '/api/traces?limit=1')).total;
        return list >= acked.size ? true : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    const list = await api<{ total: number }>(key, '/api/traces?limit=1');
    // Nothing but what was sent: acknowledged traces, and at most the unacknowledged ones a dying collector had already produced.
    expect(list.total).toBeLessThanOrEqual(acked.size + unacked.size);
    await forEachConcurrently(entries.length, 6, async (n) => {
      const want = entries[n];
      const got = await readTrace(key, want.traceId);
      expect(got, want.traceId).toBeDefined();
      expect(got!.span_count, want.traceId).toBe(want.spanIds.length);
      expect(got!.spans.map((s) => s.span_id).sort(), want.traceId).toEqual([...want.spanIds].sort()); // once each, none missing
    });
  }, 300_000);

  it('an eval run through the API completes, each case recorded once, after kill -9 of the worker mid-run and a restart', async () => {
    const key = await newProject('dist-evals');
    const agent: TestAgent = await startTestAgent(
      (req) => new Promise((resolve) => setTimeout(() => resolve({ json: { output: `answer to ${String(req.body.input)}` } }), 150)),
    );
    try {
      await api(key, '/api/agents', { method: 'POST', json: { name: 'slow', endpoint: agent.url } }, 201);
      const cases = 16;
      const items = Array.from({ length: cases }, (_, i) => ({ name: `case-${i}`, input: `q${i}`, expected: { outputContains: [`q${i}`] } }));
      const { id: runId } = await api<{ id: string }>(
        key,
        '/api/runs',
        { method: 'POST', json: { agentId: 'slow', dataset: { items }, scorers: ['contains'] } },
        202,
      );
      await pollUntil(
        'a few cases done',
        async () => {
          const run = await api<{ progress: { completed: number } }>(key, `/api/runs/${runId}`);
          return run.progress.completed >= 4 ? run : undefined;
        },
        { timeoutMs: 120_000 },
      );
      W!.child.kill('SIGKILL');
      expect(await exited(W!.child, 10_000)).toEqual({ code: null, signal: 'SIGKILL' });
      stopped.push(W!);
      expect(agent.requests.length).toBeLessThan(cases);
      W = await spawnRole('worker', workerDir);

      const run = await pollUntil(
        'the run to complete after the worker restarted',
        async () => {
          const r = await api<{ status: string; summary: { total_cases: number; passed: number; failed: number } }>(key, `/api/runs/${runId}`);
          return r.status === 'completed' ? r : undefined;
        },
        { timeoutMs: 180_000 },
      );
      expect(run.summary).toMatchObject({ total_cases: cases, passed: cases, failed: 0 });
      const { results } = await api<{ results: Array<{ case_name: string; trials: Array<{ trace_id?: string }> }> }>(key, `/api/runs/${runId}/results`);
      expect(results.map((r) => r.case_name).sort()).toEqual(items.map((i) => i.name).sort());
      expect(results.every((r) => r.trials.length === 1)).toBe(true);
      for (const item of items) {
        const calls = agent.callsFor(item.name, runId);
        expect(calls.length, item.name).toBeGreaterThanOrEqual(1);
        expect(calls.length, item.name).toBeLessThanOrEqual(2); // at-least-once: only a call in flight at the kill repeats
      }
      // The cases' scores went from the worker to the shared chDB through the gateway: one score id per case.
      const perTrace = await storedScores('dist-evals', 'contains');
      expect(perTrace.size).toBe(cases);
      for (const [traceId, n] of perTrace) expect(n.ids, traceId).toBe(1);
      // The cases' traces went worker -> Kafka -> S's ingester.
      const traced = await pollUntil(
        'the case traces readable',
        async () => {
          const list = await api<{ total: number }>(key, `/api/traces?limit=1`);
          return list.total >= cases ? list : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(traced.total).toBe(cases);
    } finally {
      await agent.close();
    }
  }, 400_000);

  it('a scripted conversation resumes at its turn after kill -9 of the worker alone, recorded turns never called again', async () => {
    const key = await newProject('dist-conversation');
    // `slow`: 300 ms per answer, so the kill lands mid-conversation; the agent answers from the history it is sent.
    const agent = await startTestAgent(conversationAgent);
    try {
      await api(key, '/api/agents', { method: 'POST', json: { name: 'chat', endpoint: agent.url } }, 201);
      const TURNS = 8;
      const turns = [
        { input: 'Hello, my name is Ana.' },
        ...Array.from({ length: TURNS - 2 }, (_, i) => ({ input: `Small talk ${i + 1}.` })),
        { input: 'What is my name?', expected: { outputContains: ['Ana'] } },
      ];
      const names = ['memory slow a', 'memory slow b'];
      const { id: runId } = await api<{ id: string }>(
        key,
        '/api/runs',
        {
          method: 'POST',
          json: { agentId: 'chat', dataset: { items: names.map((name) => ({ name, turns })) }, scorers: ['contains'], config: { parallel: true } },
        },
        202,
      );
      const results = async () => (await api<{ results: CaseResultView[] }>(key, `/api/runs/${runId}/results`)).results;
      const before = await pollUntil(
        'a few turns recorded in each conversation',
        async () => {
          const r = await results();
          return r.length === names.length && r.every((c) => (c.running?.[0]?.turns.length ?? 0) >= 2) ? r : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 100 },
      );
      W!.child.kill('SIGKILL');
      expect(await exited(W!.child, 10_000)).toEqual({ code: null, signal: 'SIGKILL' });
      stopped.push(W!);
      const callsAtKill = agent.requests.length;
      const recordedBefore = Object.fromEntries(before.map((c) => [c.case_name, c.running![0].turns.map((t) => t.turn)]));
      W = await spawnRole('worker', workerDir);

      const run = await pollUntil(
        'the conversation run to complete after the worker restarted',
        async () => {
          const r = await api<RunView>(key, `/api/runs/${runId}`);
          return r.status === 'completed' ? r : undefined;
        },
        { timeoutMs: 180_000 },
      );
      expect(run.summary).toMatchObject({ total_cases: names.length, passed: names.length, failed: 0 });
      const afterKill = agent.requests.slice(callsAtKill);
      for (const c of await results()) {
        const trial = c.trials[0];
        expect(trial.conversation, c.case_name).toEqual({ ended: 'script_done', turns_done: TURNS });
        expect(trial.turns!.map((t) => t.turn)).toEqual(Array.from({ length: TURNS }, (_, i) => i + 1));
        expect(trial.turns!.every((t) => t.error === null && t.output !== null)).toBe(true);
        expect(trial.turns!.at(-1)!.output).toBe('Your name is Ana.');
        const recorded = recordedBefore[c.case_name];
        const calls = callsPerTurn(agent.requests, runId, c.case_name);
        // A turn recorded before the kill never reached the agent again; only the turn in flight at
        // the kill may have been asked twice (at-least-once), every other turn exactly once.
        for (const turn of recorded) expect(calls[turn], `${c.case_name} turn ${turn}`).toBe(1);
        expect(Object.keys(calls).map(Number)).toEqual(trial.turns!.map((t) => t.turn));
        expect(Object.values(calls).filter((n) => n > 1).length, c.case_name).toBeLessThanOrEqual(1);
        expect(Object.values(calls).every((n) => n <= 2)).toBe(true);
        // The new worker took the conversation up at the turn it was on: its first call is the turn
        // in flight at the kill (asked again) or, when that one had just been recorded, the next.
        const turnsCalled = (requests: AgentRequest[]) => Object.keys(callsPerTurn(requests, runId, c.case_name)).map(Number);
        const onAtKill = Math.max(...turnsCalled(agent.requests.slice(0, callsAtKill)));
        const resumedAt = Math.min(...turnsCalled(afterKill));
        expect(resumedAt, c.case_name).toBeGreaterThan(Math.max(...recorded));
        expect([onAtKill, onAtKill + 1], c.case_name).toContain(resumedAt);
      }
    } finally {
      await agent.close();
    }
  }, 300_000);

  it("two worker processes score an online rule's sampled traces exactly once each", async () => {
    W2 = await spawnRole('worker', dir('agent-eval-dist-w2-'));
    const key = await newProject('dist-online');
    const rule = await api<{ id: string }>(
      key,
      '/api/evals/online-rules',
      {
        method: 'POST',
        json: {
          name: 'half',
          sample_rate: 0.5,
          scorers: ['contains'],
          expected: { outputContains: ['ok'] },
          delay_seconds: 1,
          since: new Date(Date.now() - 60_000).toISOString(),
        },
      },
      201,
    );
    const TRACES = 120;
    const ids = Array.from({ length: TRACES }, (_, i) => `online-${i}-${hex(4)}`);
    await forEachConcurrently(TRACES, 8, async (i) => {
      const start = new Date(Date.now() - 1000).toISOString();
      const end = new Date().toISOString();
      await api(
        key,
        '/api/traces/ingest',
        {
          method: 'POST',
          json: {
            trace_id: ids[i],
            name: 'agent-run',
            status: 'ok',
            start_time: start,
            duration_ms: 1000,
            spans: [{ span_id: 'root', name: 'agent', type: 'span', start_time: start, end_time: end, input: 'q', output: 'ok answer' }],
          },
        },
        201,
      );
    });
    const stats = await pollUntil(
      'the rule to decide every trace',
      async () => {
        const r = await api<{ stats: { scored: number; skipped_by_sampling: number; pending: number } }>(key, `/api/evals/online-rules/${rule.id}`);
        return r.stats.scored + r.stats.skipped_by_sampling >= TRACES && r.stats.pending === 0 ? r.stats : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    const { evaluations } = await api<{ evaluations: Array<{ trace_id: string; status: string; attempts: number }> }>(
      key,
      `/api/evals/online-rules/${rule.id}/evaluations?limit=1000`,
    );
    expect(stats.scored + stats.skipped_by_sampling).toBe(TRACES);
    expect(evaluations).toHaveLength(stats.scored);
    expect(evaluations.every((e) => e.status === 'done' && e.attempts === 1)).toBe(true);
    expect(stats.scored).toBeGreaterThan(TRACES * 0.3);
    // One score row per scored trace in the shared store: no trace was scored by both workers.
    const perTrace = await storedScores('dist-online', 'contains');
    expect(new Set(perTrace.keys())).toEqual(new Set(evaluations.map((e) => e.trace_id)));
    for (const [traceId, n] of perTrace) expect(n, traceId).toEqual({ rows: 1, ids: 1 });
  }, 300_000);
});
