/**
 * The generation span of one call a judge made (docs/judges.md): the same fields and attributes
 * whether the call is a run's (a case trace, workflows/judge-trace.ts) or an online rule's (the
 * judge's own trace, core/online/judge-trace.ts). Callers add the span's id and parent.
 */

/** A judge call as both callers have it: stored (runs) or just made (online rules). */
export interface JudgeCallForSpan {
  scorer: string;
  provider: string;
  model: string;
  attempt: number;
  status: 'ok' | 'unusable' | 'error';
  error?: string | null;
  input: unknown;
  output: unknown;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  started_ms: number;
  ended_ms: number;
  /** Null or absent when the price table did not price the call. */
  cost?: { cost_usd: number; price_version: string } | null;
}

/** The OpenTelemetry GenAI `gen_ai.provider.name` of each judge provider. */
const GEN_AI_PROVIDER: Record<string, string> = {
  anthropic: 'anthropic',
  openai: 'openai',
  'vertex-gemini': 'gcp.vertex_ai',
  'vertex-anthropic': 'gcp.vertex_ai',
};

const iso = (ms: number) => new Date(ms).toISOString();

/** Model, prompt and answer, tokens, latency (its start and end), and the cost when priced. */
export function judgeCallSpan(c: JudgeCallForSpan): Record<string, unknown> {
  return {
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
      ...(c.cost ? { 'agent_eval.cost_usd': c.cost.cost_usd, 'agent_eval.price_version': c.cost.price_version } : {}),
    },
  };
}
