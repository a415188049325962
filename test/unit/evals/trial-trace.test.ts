import { describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../../core/errors.js';
import { createLogger } from '../../../core/logger.js';
import type { RunCase } from '../../../core/model/eval-run.js';
import type { SpanView, TraceDetail } from '../../../core/model/trace.js';
import { buildSpanTree } from '../../../core/scoring/trajectory/span-tree.js';
import type { RunForWorker } from '../../../core/store/runs.js';
import type { CaseRun } from '../../../workflows/activity-types.js';
import { agentSpanId, caseSpanId, caseTraceId } from '../../../workflows/case-trace.js';
import type { ActivityClock } from '../../../workflows/store-wait.js';
import { createTrialTraces, settleCount, settleOf, trialSpans } from '../../../workflows/trial-trace.js';
import { runCaseOf } from '../../helpers/run-case.js';

// What a case trial's scorers see of its trace (workflows/trial-trace.ts): the agent call span,
// the stored spans (exported by the agent's own SDK), the returned spans not stored, never the
// run's own spans; read after the trace settled, the wait bounded.

/** Virtual time: sleeping moves it on (and tells `onSleep`), nothing really waits. */
function virtualClock(start = 1_000_000, onSleep?: (now: number) => void): ActivityClock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: (ms) => {
      slept.push(ms);
      now += ms;
      onSleep?.(now);
      return Promise.resolve();
    },
    heartbeat: () => {},
  };
}

const KEY = { runId: 'run-1', caseIndex: 0, trial: 0 };
const TRACE = caseTraceId(KEY);
const ANSWERED = 1_000_000;

describe('settleCount', () => {
  const settle = { quiet_ms: 2000, max_ms: 15_000 };

  it('waits until no span was stored for quiet_ms, counting from the last change', async () => {
    const clock = virtualClock();
    // Spans land at +0 (3), +600 ms (5) and +1500 ms (6), then nothing.
    const count = () => Promise.resolve(clock.now() - ANSWERED < 600 ? 3 : clock.now() - ANSWERED < 1500 ? 5 : 6);
    const out = await settleCount(count, ANSWERED, settle, clock);
    expect(out).toEqual({ spans: 6, waitedMs: 3500, timedOut: false });
    expect(Math.max(...clock.slept)).toBeLessThanOrEqual(500);
  });

  it('gives up max_ms after the answer while spans keep coming, and starts late no earlier', async () => {
    const clock = virtualClock();
    let n = 0;
    const out = await settleCount(() => Promise.resolve(n++), ANSWERED, settle, clock);
    expect(out.timedOut).toBe(true);
    expect(clock.now()).toBe(ANSWERED + 15_000);
    // Asked after max_ms has passed (a retried activity): read once, no wait.
    const late = virtualClock(ANSWERED + 20_000);
    expect(await settleCount(() => Promise.resolve(4), ANSWERED, settle, late)).toEqual({ spans: 4, waitedMs: 0, timedOut: true });
    expect(late.slept).toEqual([]);
  });

  it('does not wait again for a trace already seen settled at this count', async () => {
    const clock = virtualClock();
    expect(await settleCount(() => Promise.resolve(7), ANSWERED, settle, clock, 7)).toEqual({ spans: 7, waitedMs: 0, timedOut: false });
    expect(clock.slept).toEqual([]);
  });

  it('is off with either bound at 0, and has defaults', () => {
    expect(settleOf({})).toEqual({ quiet_ms: 2000, max_ms: 15_000 });
    expect(settleOf({ trace_settle: { quiet_ms: 500 } })).toEqual({ quiet_ms: 500, max_ms: 15_000 });
    expect(settleOf({ trace_settle: { quiet_ms: 0, max_ms: 15_000 } })).toBeUndefined();
    expect(settleOf({ trace_settle: { quiet_ms: 2000, max_ms: 0 } })).toBeUndefined();
  });
});

const run = {
  id: 'run-1',
  project_id: 'p1',
  agent_id: 'agent-1',
  agent_name: 'trip-planner',
  agent_version: 'v2',
  status: 'running',
  config: { parallel: false, timeout_ms: 300_000, repetitions: 1 },
  aggregation: 'mean',
  min_score: 0.7,
} as RunForWorker;

const runCase: RunCase = runCaseOf('lisbon to kyoto', ['toolCalls', 'helpfulness_judge'], { input: { question: 'Plan 4 days in Kyoto' } });

const caseRun: CaseRun = {
  ...KEY,
  startedAt: ANSWERED - 3000,
  calls: [
    {
      startedAt: ANSWERED - 2500,
      endedAt: ANSWERED,
      reply: {
        output: '## Kyoto, 4 days\n\nFlights booked LIS → KIX.',
        tool_calls: [{ name: 'search_flights' }],
        // One span the agent returned and also exported (same id), one only returned (no id).
        spans: [
          { span_id: 'a1', name: 'execute_tool search_flights', type: 'tool', attributes: { tool_name: 'search_flights' } },
          {
            name: 'execute_tool get_weather',
            type: 'tool',
            input: '{"city":"Kyoto"}',
            start_time: new Date(ANSWERED - 600).toISOString(),
            end_time: new Date(ANSWERED - 500).toISOString(),
            attributes: { tool_name: 'get_weather' },
          },
        ],
      },
    },
  ],
};

/** A stored span as the trace store's read contract answers it. */
function view(span_id: string, parent: string | null, over: Partial<SpanView> = {}): SpanView {
  return {
    span_id,
    trace_id: TRACE,
    parent_span_id: parent,
    name: span_id,
    type: 'span',
    component_type: null,
    convention: 'genai',
    kind: 'internal',
    status: 'ok',
    status_message: null,
    start_time: new Date(ANSWERED - 2000).toISOString(),
    end_time: new Date(ANSWERED - 1000).toISOString(),
    duration_ms: 1000,
    model: null,
    input: '',
    output: '',
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    cost: null,
    attributes: {},
    resource_attributes: { 'service.name': 'trip-planner' },
    scope: { name: 'agent-framework', version: '1.4.0' },
    events: [],
    ...over,
  };
}

const AGENT_CALL = agentSpanId(KEY, 0);
const ROOT = caseSpanId(KEY, 'root');
const STORED: SpanView[] = [
  view('a0', AGENT_CALL, { name: 'invoke_agent Planner' }),
  view('a1', 'a0', {
    name: 'execute_tool search_flights',
    type: 'tool',
    component_type: 'tool',
    input: '{"from":"LIS","to":"KIX"}',
    attributes: { 'gen_ai.tool.name': 'search_flights' },
  }),
  view('a2', 'a0', {
    name: 'chat gpt-4o',
    type: 'generation',
    component_type: 'generation',
    model: 'gpt-4o',
    input_tokens: 900,
    output_tokens: 300,
    cost: { input: 0.00225, output: 0.003, cached_input: 0, total: 0.00525, version: '2026-11-23' },
  }),
  // The run's own spans, as a trace written before (a retried scoring) would hold them.
  view(ROOT, null, { name: 'eval case: lisbon to kyoto' }),
  view(AGENT_CALL, ROOT, { name: 'agent call' }),
  view(caseSpanId(KEY, 'scorer-helpfulness_judge'), ROOT, { name: 'score: helpfulness_judge' }),
  view('judge-call', caseSpanId(KEY, 'scorer-helpfulness_judge'), { name: 'judge: helpfulness_judge', type: 'generation', input_tokens: 5000 }),
];

describe('trialSpans', () => {
  it('is the agent call, the stored spans and the returned spans not stored, without the run’s own', () => {
    const spans = trialSpans(run, runCase, caseRun, STORED);
    expect(spans.map((s) => s.name)).toEqual(['agent call', 'invoke_agent Planner', 'execute_tool search_flights', 'chat gpt-4o', 'execute_tool get_weather']);
    // The stored copy of a returned span wins (normalized as stored); the returned one without an id gets the run's id for it.
    expect(spans[2]).toMatchObject({ span_id: 'a1', input: '{"from":"LIS","to":"KIX"}', convention: 'genai' });
    expect(spans[4]).toMatchObject({ span_id: caseSpanId(KEY, 'agent-0-span-1'), parent_span_id: AGENT_CALL });
    // Stored spans are shown without their resource, scope and events.
    expect(spans[1]).not.toHaveProperty('resource_attributes');
    expect(spans[3]).toMatchObject({ cost: { total: 0.00525 } });

    const tree = buildSpanTree(spans, TRACE);
    expect(tree.roots.map((r) => r.name)).toEqual(['agent call']);
    expect(tree.anomalies).toEqual({ withoutId: 0, duplicates: 0, orphans: 0, cycles: 0 });
    const stats = tree.stats();
    expect(stats).toMatchObject({ spans: 5, llmCalls: 1, toolCalls: 2, inputTokens: 900, outputTokens: 300 });
    expect(stats.costUsd).toBeCloseTo(0.00525, 9);
    expect(tree.toolCalls().map((c) => c.name)).toEqual(['search_flights', 'get_weather']);
  });
});

/** A trace store over `spans` (changing with time through `at`), counting its reads; `down` fails reads while true. */
function fakeStore(spansAt: (now: number) => SpanView[], clock: ActivityClock, down: { now: boolean } = { now: false }) {
  const reads: number[] = [];
  return {
    reads,
    getTrace(projectId: string, traceId: string, page?: { limit: number }) {
      if (down.now) return Promise.reject(new ServiceUnavailableError('analytics', new Error('connect ECONNREFUSED 127.0.0.1:9000')));
      expect([projectId, traceId]).toEqual(['p1', TRACE]);
      reads.push(page?.limit ?? -1);
      const spans = spansAt(clock.now());
      return Promise.resolve(spans.length ? ({ span_count: spans.length, spans: spans.slice(0, page?.limit) } as unknown as TraceDetail) : null);
    },
  };
}

const logger = createLogger('silent');

describe('createTrialTraces', () => {
  it('reads nothing when no scorer of the case reads the trace', async () => {
    const clock = virtualClock();
    const store = fakeStore(() => STORED, clock);
    const traces = createTrialTraces({ traces: store, logger, clock: () => clock });
    const trace = await traces.traceFor(run, runCase, caseRun, false);
    expect(store.reads).toEqual([]);
    expect(trace.spans.map((s) => s.name)).toEqual(['agent call', 'execute_tool search_flights', 'execute_tool get_weather']);
  });

  it('waits for a span the agent exports after answering, then reads the trace once; a second scorer of the trial does not wait again', async () => {
    const clock = virtualClock(ANSWERED + 5);
    const late = view('a3', 'a0', { name: 'execute_tool book_hotel', type: 'tool', attributes: { tool_name: 'book_hotel' } });
    const store = fakeStore((now) => (now >= ANSWERED + 1500 ? [...STORED.slice(0, 3), late] : STORED.slice(0, 3)), clock);
    const traces = createTrialTraces({ traces: store, logger, clock: () => clock });
    const trace = await traces.traceFor(run, runCase, caseRun, true);
    expect(trace.spans.map((s) => s.name)).toContain('execute_tool book_hotel');
    expect(clock.now() - ANSWERED).toBeGreaterThanOrEqual(3500);
    expect(store.reads.at(-1)).toBe(1000);
    const before = clock.now();
    await traces.traceFor(run, runCase, caseRun, true);
    expect(clock.now()).toBe(before);
  });

  it('with trace_settle off, reads the trace as it stands', async () => {
    const clock = virtualClock(ANSWERED + 5);
    const store = fakeStore(() => STORED, clock);
    const traces = createTrialTraces({ traces: store, logger, clock: () => clock });
    await traces.traceFor({ ...run, config: { ...run.config, trace_settle: { quiet_ms: 0, max_ms: 15_000 } } }, runCase, caseRun, true);
    expect(store.reads).toEqual([1000]);
    expect(clock.slept).toEqual([]);
  });

  it('a trace store that is down is waited for, then fails the attempt: never a score', async () => {
    const clock = virtualClock(ANSWERED + 5);
    const down = { now: true };
    const store = fakeStore(() => STORED, clock, down);
    const traces = createTrialTraces({ traces: store, logger, clock: () => clock, storeWaitMs: 10_000 });
    await expect(traces.traceFor(run, runCase, caseRun, true)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(clock.now() - ANSWERED).toBeGreaterThan(10_000);
    // Back within the wait: the read goes on.
    const flaky = { now: true };
    const again = virtualClock(ANSWERED + 5, (now) => (flaky.now = now - ANSWERED < 3000));
    const back = fakeStore(() => STORED, again, flaky);
    const trace = await createTrialTraces({ traces: back, logger, clock: () => again, storeWaitMs: 60_000 }).traceFor(run, runCase, caseRun, true);
    expect(trace.spans).toHaveLength(5);
  });
});
