import type { z } from 'zod';
import { caseResultView, summarize } from '../core/evals/case-results.js';
import type { LocalResultSchema, RunCase, RunView, TrialRecord } from '../core/model/eval-run.js';
import type { AgentEvalClient } from './client.js';
import { errorText } from './errors.js';
import type { CaseOutcome, EvaluationResult } from './evaluate.js';
import type { Suite } from './suites.js';

/** What evaluate() does with finished case trials: uploads them in batches, and summarizes them as the service does. */

type UploadResult = z.input<typeof LocalResultSchema>;

/** The ids of spans nobody records (OpenTelemetry's no-op tracer): nothing to link to. */
export const NO_TRACE = '00000000000000000000000000000000';
const NO_SPAN = '0000000000000000';

/** A finished trial as `POST /api/runs/{id}/results` takes it; a conversation's with its turns and how it ended. */
export function uploadOf(o: CaseOutcome, rootSpanId: string, started: number): UploadResult {
  return {
    case_index: o.caseIndex,
    trial: o.trial,
    details: o.details,
    output: o.output,
    tool_calls: o.toolCalls,
    usage: o.usage,
    error: o.error,
    duration_ms: o.durationMs,
    latency_ms: o.latencyMs,
    trace_id: o.traceId === NO_TRACE ? null : o.traceId,
    span_id: rootSpanId === NO_SPAN ? null : rootSpanId,
    started_at: started,
    ...(o.turns
      ? {
          turns: o.turns.map((t) => ({
            turn: t.turn,
            user: t.user,
            output: t.output,
            tool_calls: t.tool_calls,
            usage: t.usage,
            details: t.details,
            error: t.error,
            latency_ms: t.latency_ms,
          })),
          conversation: { ended: o.conversation?.ended ?? null },
        }
      : {}),
  };
}

/** How much of a batch a result takes: a conversation's turns count too. */
const weightOf = (result: UploadResult) => 1 + (result.turns?.length ?? 0);

/** Sends results in batches (at most 100 trials and turns, or what gathered in 1 s), one request at a time; a failed batch fails the run. */
export class ResultUploader {
  private queue: UploadResult[] = [];
  private queued = 0;
  private inFlight: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  failure: unknown;

  constructor(
    private readonly client: AgentEvalClient,
    private readonly runId: string,
  ) {}

  push(result: UploadResult): void {
    const weight = weightOf(result);
    if (this.queued && this.queued + weight > 100) this.send();
    this.queue.push(result);
    this.queued += weight;
    if (this.queued >= 100) this.send();
    else this.timer ??= setTimeout(() => this.send(), 1000);
  }

  private send(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.queued = 0;
    const batch = this.queue.splice(0);
    if (!batch.length) return;
    this.inFlight = this.inFlight.then(async () => {
      if (this.failure) return;
      try {
        await this.client.runs.addResults(this.runId, batch);
      } catch (err) {
        this.failure = err;
      }
    });
  }

  async drain(): Promise<void> {
    this.send();
    await this.inFlight;
    if (this.failure) throw this.failure instanceof Error ? this.failure : new Error(errorText(this.failure));
  }
}

/** The run's case results and summary, computed as the service computes them (core/evals/case-results.ts). */
export function localResult(
  cases: RunCase[],
  outcomes: CaseOutcome[],
  def: Suite['definition'],
  run: RunView | undefined,
  client: AgentEvalClient | undefined,
): EvaluationResult {
  const byCase = new Map<number, Array<TrialRecord & { trial: number }>>();
  for (const o of [...outcomes].sort((a, b) => a.caseIndex - b.caseIndex || a.trial - b.trial)) {
    const list = byCase.get(o.caseIndex) ?? [];
    list.push({
      trial: o.trial,
      status: o.status,
      details: o.details,
      avg_score: o.avgScore,
      passed: o.passed,
      duration_ms: o.durationMs,
      latency_ms: o.latencyMs,
      output: o.output,
      tool_calls: o.toolCalls,
      usage: o.usage,
      approval: null,
      error: o.error,
      trace_id: o.traceId,
      ...(o.turns ? { turns: o.turns, conversation: o.conversation ?? null } : {}),
    });
    byCase.set(o.caseIndex, list);
  }
  const scoring = { aggregation: def.aggregation, minScore: def.defaultMinScore };
  const views = cases.map((c) => ({ view: caseResultView(c, byCase.get(c.case_index) ?? [], scoring), weight: c.weight }));
  const summary =
    run?.summary ??
    summarize(
      views,
      outcomes.reduce((sum, o) => Math.max(sum, o.durationMs), 0),
    );
  return {
    runId: run?.id,
    run,
    cases: views.map((v) => v.view),
    summary,
    passed: views.every((v) => v.view.status === 'passed'),
    outcomes,
    url: run && client ? `${client.url}/runs/${run.id}` : undefined,
  };
}
