import type { Logger } from '../core/logger.js';
import { DEFAULT_TRACE_QUIET_MS, DEFAULT_TRACE_SETTLE_MAX_MS, type RunCase, type TraceSettle } from '../core/model/eval-run.js';
import type { SpanView } from '../core/model/trace.js';
import type { ScoreTrace } from '../core/scoring/scorer.js';
import type { AnalyticsStore } from '../core/store/analytics.js';
import { MAX_SPANS_FOR_SCORERS } from '../core/store/online-traces.js';
import type { RunForWorker } from '../core/store/runs.js';
import type { CaseRun } from './activity-types.js';
import { agentCallSpan, agentSpanId, agentSpans, caseSpanId, caseTraceId } from './case-trace.js';
import { activityClock, untilStoreAnswers, type ActivityClock } from './store-wait.js';

/**
 * What a case trial's scorers see of its trace (docs/evals.md, "What scorers see of the trace"):
 * the agent call span(s) as the run will write them, the spans stored in the case's trace (those
 * the agent's own OpenTelemetry SDK exported into it through `traceparent`, read back as stored,
 * normalized), and the spans the agent returned in its answer that are not stored yet (by span
 * id). Spans the run writes for itself after scoring (the case's root, `score:` spans and the
 * judges' calls under them) are never part of it, should a trace be read after they were written.
 *
 * Before scorers that read the trace run, the trace is given time to settle: the stored span
 * count is polled until it has not changed for `quiet_ms`, at most `max_ms` after the agent's
 * answer (the run's `config.trace_settle`). All of it is activity I/O (scoreTrial, callJudge,
 * scoreCase): nothing of it goes through the workflow's history.
 */

/**
 * How often the span count is read while a trace settles: every 500 ms, or a quarter of a
 * shorter quiet period. Each read is a trace store query (~25-30 ms of chDB on the 2-core test
 * machine, docs/benchmarks.md): 5 of them for a 2 s quiet period.
 */
export const SETTLE_POLL_MS = 500;
const pollMs = (quietMs: number) => Math.max(50, Math.min(SETTLE_POLL_MS, Math.floor(quietMs / 4)));

/** Most settled traces a worker remembers (createTrialTraces), oldest forgotten first. */
const MAX_REMEMBERED = 10_000;

export interface TrialTraceDeps {
  traces: Pick<AnalyticsStore, 'getTrace'>;
  logger: Logger;
  /** Unit tests' time; an activity's (Temporal's cancellable sleep) by default. */
  clock?: () => ActivityClock;
  /** How long a trace store that does not answer is waited for per attempt (store-wait.ts). */
  storeWaitMs?: number;
}

export interface SettleOutcome {
  /** Spans stored when the wait ended. */
  spans: number;
  waitedMs: number;
  /** The trace was still changing at `max_ms`. */
  timedOut: boolean;
}

/** The run's settle wait with its defaults; undefined when it is off (either bound 0). */
export function settleOf(config: { trace_settle?: Partial<TraceSettle> }): TraceSettle | undefined {
  const quiet = config.trace_settle?.quiet_ms ?? DEFAULT_TRACE_QUIET_MS;
  const max = config.trace_settle?.max_ms ?? DEFAULT_TRACE_SETTLE_MAX_MS;
  return quiet > 0 && max > 0 ? { quiet_ms: quiet, max_ms: max } : undefined;
}

/**
 * Waits until `count` has not changed for `quiet_ms` (counted from the first read), or until
 * `answeredAt + max_ms`, whichever comes first. `known`: a count this trace already settled at;
 * when the first read still finds it, the trace has been quiet since and nothing is waited.
 */
export async function settleCount(
  count: () => Promise<number>,
  answeredAt: number,
  settle: TraceSettle,
  clock: ActivityClock,
  known?: number,
): Promise<SettleOutcome> {
  const began = clock.now();
  const deadline = answeredAt + settle.max_ms;
  let last = await count();
  if (last === known) return { spans: last, waitedMs: 0, timedOut: false };
  let since = clock.now();
  for (;;) {
    const now = clock.now();
    if (now - since >= settle.quiet_ms) return { spans: last, waitedMs: now - began, timedOut: false };
    if (now >= deadline) return { spans: last, waitedMs: now - began, timedOut: true };
    await clock.sleep(Math.max(1, Math.min(pollMs(settle.quiet_ms), since + settle.quiet_ms - now, deadline - now)));
    clock.heartbeat({ spans: last });
    const next = await count();
    if (next !== last) {
      last = next;
      since = clock.now();
    }
  }
}

/** A stored span as scorers see it: the trace view's fields less the resource, scope and events (judges' prompts and custom scorers' bodies stay small). */
function storedSpan(v: SpanView & { input_truncated?: boolean; output_truncated?: boolean }): Record<string, unknown> {
  return {
    span_id: v.span_id,
    parent_span_id: v.parent_span_id,
    name: v.name,
    type: v.type,
    component_type: v.component_type,
    convention: v.convention,
    kind: v.kind,
    status: v.status,
    ...(v.status_message ? { status_message: v.status_message } : {}),
    start_time: v.start_time,
    end_time: v.end_time,
    duration_ms: v.duration_ms,
    model: v.model,
    input: v.input,
    output: v.output,
    ...(v.input_truncated ? { input_truncated: true } : {}),
    ...(v.output_truncated ? { output_truncated: true } : {}),
    input_tokens: v.input_tokens,
    output_tokens: v.output_tokens,
    cost: v.cost,
    attributes: v.attributes,
  };
}

/**
 * The spans scorers see: the agent call spans (the calls as made), the stored spans but the run's
 * own, then the returned spans not stored (ids filled in as the run will write them).
 */
export function trialSpans(
  run: Pick<RunForWorker, 'agent_id' | 'agent_version'>,
  runCase: RunCase,
  caseRun: CaseRun,
  stored: readonly SpanView[],
): Array<Record<string, unknown>> {
  const root = caseSpanId(caseRun, 'root');
  // The run's own spans hang under the root (agent calls, judges without a score) or a score: span (judges).
  const runParents = new Set([root, ...runCase.scorers.map((ref) => caseSpanId(caseRun, `scorer-${ref.name}`))]);
  const agent = { id: run.agent_id, version: run.agent_version };
  // The case's root is the run's: in the scorers' tree the agent calls are the roots.
  const spans: Array<Record<string, unknown>> = caseRun.calls.map((rec, call) => ({ ...agentCallSpan(caseRun, call, rec, agent), parent_span_id: null }));
  const seen = new Set<unknown>([...runParents, ...caseRun.calls.map((_, call) => agentSpanId(caseRun, call))]);
  for (const view of stored) {
    if (seen.has(view.span_id) || (view.parent_span_id !== null && runParents.has(view.parent_span_id))) continue;
    seen.add(view.span_id);
    spans.push(storedSpan(view));
  }
  caseRun.calls.forEach((rec, call) => {
    for (const span of agentSpans(caseRun, call, rec)) {
      if (seen.has(span.span_id)) continue;
      seen.add(span.span_id);
      spans.push(span);
    }
  });
  return spans;
}

/** Reads a case trial's trace for its scorers (see the top of this file). */
export function createTrialTraces(deps: TrialTraceDeps) {
  // Traces this worker saw settle, with their span count: a later scorer of the trial (its judges,
  // then scoreTrial) does not wait again unless the count changed since.
  const settledAt = new Map<string, number>();
  const remember = (traceId: string, spans: number) => {
    settledAt.delete(traceId);
    settledAt.set(traceId, spans);
    if (settledAt.size > MAX_REMEMBERED) settledAt.delete(settledAt.keys().next().value!);
  };

  /**
   * The trial's trace as scorers see it. `stored` false: no read of the store (no scorer of the
   * case reads the trace), the agent call spans and the returned spans only. A trace store that
   * does not answer is waited for, then the attempt fails (the activity is retried): it never
   * becomes a score.
   */
  async function traceFor(run: RunForWorker, runCase: RunCase, caseRun: CaseRun, stored: boolean): Promise<ScoreTrace> {
    const traceId = caseTraceId(caseRun);
    if (!stored) return { trace_id: traceId, spans: trialSpans(run, runCase, caseRun, []) };
    const clock = (deps.clock ?? activityClock)();
    const fields = { run_id: caseRun.runId, case_index: caseRun.caseIndex, trial: caseRun.trial, trace_id: traceId };
    const read = <T>(fn: () => Promise<T>) => untilStoreAnswers(fn, { logger: deps.logger, store: 'trace store', fields, clock, waitMs: deps.storeWaitMs });
    const settle = settleOf(run.config);
    const answeredAt = caseRun.calls.at(-1)?.endedAt ?? clock.now();
    if (settle) {
      const count = () => read(async () => (await deps.traces.getTrace(run.project_id, traceId, { limit: 1 }))?.span_count ?? 0);
      const outcome = await settleCount(count, answeredAt, settle, clock, settledAt.get(traceId));
      remember(traceId, outcome.spans);
      if (outcome.timedOut)
        deps.logger.info(
          { ...fields, spans: outcome.spans, waited_ms: outcome.waitedMs },
          'case trace still changing at trace_settle.max_ms; scored as it stands',
        );
    }
    const detail = await read(() => deps.traces.getTrace(run.project_id, traceId, { limit: MAX_SPANS_FOR_SCORERS }));
    return { trace_id: traceId, spans: trialSpans(run, runCase, caseRun, detail?.spans ?? []) };
  }

  return { traceFor };
}
