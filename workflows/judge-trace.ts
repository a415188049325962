import type { ScoreDetail } from '../core/model/eval-case.js';
import type { StoredJudgeCall } from '../core/store/judges.js';
import { judgeCallSpan } from '../core/judges/judge-span.js';
import { simulatorCallSpan, simulatorTurnOf } from '../core/conversations/simulator-span.js';
import { caseSpanId, type TrialKey } from './case-trace.js';

/**
 * One generation span per call a judge made while scoring the trial, under that scorer's
 * `score:` span (the root when the trial has no score for it): model, prompt and answer, tokens,
 * latency (its start and end), and the cost once the price table prices it. Span ids derive
 * from the stored call, so a trace written again has the same spans. A simulated user's calls,
 * recorded with the judges', are `simulated_user` generation spans under the root.
 */
export function judgeSpans(key: TrialKey, calls: readonly StoredJudgeCall[], details: Record<string, ScoreDetail>): Array<Record<string, unknown>> {
  return calls.map((c) => ({
    span_id: caseSpanId(key, `judge-call-${c.id}`),
    parent_span_id: Object.hasOwn(details, c.scorer) ? caseSpanId(key, `scorer-${c.scorer}`) : caseSpanId(key, 'root'),
    ...(simulatorTurnOf(c.scorer) === undefined ? judgeCallSpan : simulatorCallSpan)({
      ...c,
      cost: c.cost_usd === null ? null : { cost_usd: c.cost_usd, price_version: c.price_version ?? '' },
    }),
  }));
}
