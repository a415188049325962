import type { ScoreDetail } from '../core/model/eval-case.js';
import type { StoredJudgeCall } from '../core/store/postgres/judge-store.js';
import { caseSpanId, type TrialKey } from './case-trace.js';

/** The OpenTelemetry GenAI `gen_ai.provider.name` of each judge provider. */
const GEN_AI_PROVIDER: Record<string, string> = {
  anthropic: 'anthropic',
  openai: 'openai',
  'vertex-gemini': 'gcp.vertex_ai',
  'vertex-anthropic': 'gcp.vertex_ai',
};

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * One generation span per call a judge made while scoring the trial, under that scorer's
 * `score:` span (the root when the trial has no score for it): model, prompt and answer, tokens,
 * latency (its start and end), and the cost once the price table prices it. Span ids derive
 * from the stored call, so a trace written again has the same spans.
 */
export function judgeSpans(key: TrialKey, calls: readonly StoredJudgeCall[], details: Record<string, ScoreDetail>): Array<Record<string, unknown>> {
  return calls.map((c) => ({
    span_id: caseSpanId(key, `judge-call-${c.id}`),
    parent_span_id: Object.hasOwn(details, c.scorer) ? caseSpanId(key, `scorer-${c.scorer}`) : caseSpanId(key, 'root'),
    name: `judge: ${c.scorer}`.slice(0, 1024),
    type: 'generation',
    start_time: iso(c.started_ms),
    end_time: iso(Math.max(c.started_ms, c.ended_ms)),
    status: c.status === 'error' ? 'error' : 'ok',
    ...(c.error ? { status_message: c.error.slice(0, 4096) } : {}),
    model: c.model,
    input: c.input ?? null,
    output: c.output ?? null,
    input_tokens: c.input_tokens,
    output_tokens: c.output_tokens,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': GEN_AI_PROVIDER[c.provider] ?? c.provider,
      'gen_ai.request.model': c.model,
      'gen_ai.usage.cache_read_input_tokens': c.cached_input_tokens,
      'agent_eval.judge': c.scorer,
      'agent_eval.judge_provider': c.provider,
      'agent_eval.judge_attempt': c.attempt,
      'agent_eval.judge_status': c.status,
      'agent_eval.latency_ms': Math.max(0, c.ended_ms - c.started_ms),
      ...(c.cost_usd === null ? {} : { 'agent_eval.cost_usd': c.cost_usd, 'agent_eval.price_version': c.price_version ?? '' }),
    },
  }));
}
