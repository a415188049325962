import { caseSessionId } from '../core/agents/agent-body.js';
import { hexId, scoreUuid } from '../core/ids/derived-ids.js';
import type { ScoreDetail } from '../core/model/eval-case.js';
import type { Score } from '../core/model/score.js';
import type { AgentCall } from './activity-types.js';

/**
 * The trace one case trial leaves in the trace store: a root span for the case, a span per agent
 * call, the agent's own spans under it, and a span per scorer. Every id derives from (run, case,
 * trial), so an activity retried after a crash writes the same rows again, which read back once.
 */

export interface TrialKey {
  runId: string;
  caseIndex: number;
  trial: number;
}

const keyText = (k: TrialKey) => `${k.runId}:${k.caseIndex}:${k.trial}`;

/** W3C trace id (32 hex) of a case trial. */
export const caseTraceId = (k: TrialKey) => hexId(keyText(k), 32);
/** W3C span id (16 hex) of a named span within a case trial's trace. */
export const caseSpanId = (k: TrialKey, name: string) => hexId(`${keyText(k)}:${name}`, 16);
/** The agent call's span id: the parent of whatever the agent reports or exports. */
export const agentSpanId = (k: TrialKey, call: number) => caseSpanId(k, `agent-call-${call}`);
/** The `traceparent` header sent with agent call number `call` (0 first, 1 after an approval). */
export const traceparentFor = (k: TrialKey, call: number) => `00-${caseTraceId(k)}-${agentSpanId(k, call)}-01`;

/** A deterministic UUID-shaped id for a score of a case trial. */
function scoreId(k: TrialKey, name: string): string {
  return scoreUuid(`${keyText(k)}:score:${name}`);
}

export interface CaseTraceInput {
  key: TrialKey;
  caseName: string;
  agent: { id: string; name: string; version: string };
  input: unknown;
  startedAt: number;
  endedAt: number;
  calls: AgentCall[];
  details: Record<string, ScoreDetail>;
  avgScore: number;
  status: 'passed' | 'failed' | 'cancelled';
  error?: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The agent's spans, completed with ids and times where it left them out and hung under its call. */
export function agentSpans(key: TrialKey, call: number, rec: AgentCall): Array<Record<string, unknown>> {
  const parent = agentSpanId(key, call);
  return (rec.reply?.spans ?? []).map((span, i) => ({
    type: 'span',
    ...span,
    span_id: typeof span.span_id === 'string' && span.span_id ? span.span_id : caseSpanId(key, `agent-${call}-span-${i}`),
    parent_span_id: span.parent_span_id ?? parent,
    start_time: span.start_time ?? iso(rec.startedAt),
    end_time: span.end_time ?? span.start_time ?? iso(rec.endedAt),
  }));
}

/** The span of agent call number `call` (0 first, 1 after an approval): the parent of whatever the agent reports or exports. */
export function agentCallSpan(key: TrialKey, call: number, rec: AgentCall, agent: { id: string; version: string }): Record<string, unknown> {
  return {
    span_id: agentSpanId(key, call),
    parent_span_id: caseSpanId(key, 'root'),
    // A conversation's calls are numbered through the trial, one span (at least) per turn.
    name: rec.turn !== undefined ? `turn ${rec.turn}: agent call` : call === 0 ? 'agent call' : 'agent call (after approval)',
    type: 'span',
    start_time: iso(rec.startedAt),
    end_time: iso(rec.endedAt),
    status: rec.error ? 'error' : 'ok',
    ...(rec.error ? { status_message: rec.error.slice(0, 4096) } : {}),
    ...(rec.user !== undefined ? { input: rec.user } : {}),
    output: rec.reply?.output ?? null,
    ...(rec.reply?.usage ? { input_tokens: rec.reply.usage.input_tokens, output_tokens: rec.reply.usage.output_tokens } : {}),
    attributes: {
      'agent_eval.agent_id': agent.id,
      'agent_eval.agent_version': agent.version,
      ...(rec.turn !== undefined ? { 'agent_eval.turn': rec.turn } : {}),
      ...(rec.reply?.tool_calls.length ? { 'agent_eval.tool_calls': rec.reply.tool_calls.map((c) => c.name) } : {}),
      ...(rec.reply?.approval ? { 'agent_eval.approval_requested': rec.reply.approval.tool } : {}),
    },
  };
}

/** The JSON ingest body of the case's trace; `withAgentSpans` false leaves out what the agent sent. */
export function caseTraceBody(t: CaseTraceInput, withAgentSpans = true): Record<string, unknown> {
  const { key } = t;
  const root = caseSpanId(key, 'root');
  const spans: Array<Record<string, unknown>> = [
    {
      span_id: root,
      name: `eval case: ${t.caseName}`.slice(0, 1024),
      type: 'span',
      start_time: iso(t.startedAt),
      end_time: iso(t.endedAt),
      status: t.status === 'failed' && t.error ? 'error' : 'ok',
      ...(t.error ? { status_message: t.error.slice(0, 4096) } : {}),
      // A conversation's case has no input of its own: its first user message stands for it.
      input: t.input ?? t.calls[0]?.user ?? null,
      output: t.calls.at(-1)?.reply?.output ?? null,
      attributes: { 'agent_eval.case_status': t.status, 'agent_eval.avg_score': t.avgScore, 'session.id': caseSessionId(key.runId, key.caseIndex, key.trial) },
    },
  ];
  t.calls.forEach((rec, call) => {
    spans.push(agentCallSpan(key, call, rec, t.agent));
    if (withAgentSpans) spans.push(...agentSpans(key, call, rec));
  });
  for (const [name, detail] of Object.entries(t.details)) {
    spans.push({
      span_id: caseSpanId(key, `scorer-${name}`),
      parent_span_id: root,
      name: `score: ${name}`.slice(0, 1024),
      type: 'span',
      start_time: iso(t.endedAt),
      end_time: iso(t.endedAt),
      output: detail,
      attributes: { 'agent_eval.scorer': name, 'agent_eval.score': detail.score },
    });
  }
  return {
    trace_id: caseTraceId(key),
    name: `eval: ${t.caseName}`.slice(0, 1024),
    status: t.status === 'failed' && t.error ? 'error' : 'ok',
    duration_ms: Math.max(0, t.endedAt - t.startedAt),
    start_time: iso(t.startedAt),
    attributes: {
      'agent_eval.run_id': key.runId,
      'agent_eval.case_index': key.caseIndex,
      'agent_eval.case_name': t.caseName.slice(0, 1024),
      'agent_eval.trial': key.trial,
      'agent_eval.agent_name': t.agent.name,
      'agent_eval.agent_version': t.agent.version,
    },
    spans,
  };
}

/**
 * The case's scores for the score store: one per scorer with source `eval` (the run's scores),
 * and the case's aggregate `avg_score` with source `temporal` (written by the workflow itself).
 */
export function caseScores(t: CaseTraceInput): Score[] {
  const traceId = caseTraceId(t.key);
  const createdAt = iso(t.endedAt);
  const scores: Score[] = Object.entries(t.details).map(([name, d]) => ({
    id: scoreId(t.key, name),
    trace_id: traceId,
    span_id: caseSpanId(t.key, `scorer-${name}`),
    name,
    value: d.score,
    score_type: 'numeric',
    source: 'eval',
    scorer_name: name,
    reason: d.reason.slice(0, 65_536),
    evidence: d.evidence.slice(0, 100),
    created_at: createdAt,
  }));
  scores.push({
    id: scoreId(t.key, 'avg_score'),
    trace_id: traceId,
    span_id: caseSpanId(t.key, 'root'),
    name: 'avg_score',
    value: t.avgScore,
    score_type: 'numeric',
    source: 'temporal',
    scorer_name: null,
    reason: `case ${t.status}`,
    evidence: [],
    created_at: createdAt,
  });
  return scores;
}
