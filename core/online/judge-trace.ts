import { hexId, scoreUuid } from '../ids/derived-ids.js';
import type { JudgeGeneration } from '../judges/judge.js';
import type { ScoreDetail } from '../model/eval-case.js';
import { judgeCallSpan } from '../judges/judge-span.js';

/**
 * Ids of an online evaluation's outputs and the trace an LLM judge leaves (docs/online-evals.md,
 * "The judge's trace"). Every id derives from (rule, trace, scorer), so an evaluation retried
 * after a crash writes the same score and the same judge trace, which read back once.
 */

const keyText = (ruleId: string, traceId: string, scorer: string) => `online:${ruleId}:${traceId}:${scorer}`;

/** A UUID-shaped id for the score a rule's scorer gives a trace. */
export function onlineScoreId(ruleId: string, traceId: string, scorer: string): string {
  return scoreUuid(`${keyText(ruleId, traceId, scorer)}:score`);
}

/** W3C trace id (32 hex) of the trace holding a judge's calls for one (rule, trace, scorer). */
export const judgeTraceId = (ruleId: string, traceId: string, scorer: string) => hexId(`${keyText(ruleId, traceId, scorer)}:judge`, 32);

/**
 * A session rule's evaluation is (rule, session, generation): its scores' ids and its judges'
 * traces derive from that and the scorer (docs/online-evals.md, "Session rules"), so a retried
 * session evaluation writes the same ones.
 */
const sessionKeyText = (ruleId: string, sessionId: string, generation: number, scorer: string) =>
  `online-session:${ruleId}:${generation}:${JSON.stringify(sessionId)}:${scorer}`;

export function onlineSessionScoreId(ruleId: string, sessionId: string, generation: number, scorer: string): string {
  return scoreUuid(`${sessionKeyText(ruleId, sessionId, generation, scorer)}:score`);
}

export const sessionJudgeTraceId = (ruleId: string, sessionId: string, generation: number, scorer: string) =>
  hexId(`${sessionKeyText(ruleId, sessionId, generation, scorer)}:judge`, 32);

const iso = (ms: number) => new Date(ms).toISOString();

export interface JudgeTraceInput {
  ruleId: string;
  ruleName: string;
  /** The trace that was judged (a session's: its last turn's). */
  traceId: string;
  /** A session rule's evaluation: the session and generation judged, and the judge trace's id (sessionJudgeTraceId). */
  session?: { sessionId: string; generation: number; judgeTraceId: string };
  scorer: string;
  scoreId: string;
  /** The evaluation attempt (from 1): a retried evaluation adds its calls beside the earlier ones. */
  attempt: number;
  startedAt: number;
  endedAt: number;
  verdict: ScoreDetail;
  /** Every call the judge made in this attempt, answered or not. */
  calls: ReadonlyArray<JudgeGeneration & { cost?: { cost_usd: number; price_version: string } | null }>;
}

/**
 * The JSON ingest body of a judge's trace: a root span `judge: {scorer}` whose output is the
 * verdict, and one generation span per call (model, prompt, answer, tokens, latency, cost when
 * priced), with the attributes a run's judge spans carry. The trace's attributes name the rule,
 * the judged trace and the score, and keep it out of every rule's scans.
 */
export function judgeTraceBody(t: JudgeTraceInput): Record<string, unknown> {
  const traceId = t.session?.judgeTraceId ?? judgeTraceId(t.ruleId, t.traceId, t.scorer);
  const scored = t.session ? { 'agent_eval.scored_session_id': t.session.sessionId, 'agent_eval.session_generation': String(t.session.generation) } : {};
  const root = hexId(`${traceId}:root`, 16);
  const failed = t.calls.length > 0 && t.calls.every((c) => c.status === 'error');
  const spans: Array<Record<string, unknown>> = [
    {
      span_id: root,
      name: `judge: ${t.scorer}`.slice(0, 1024),
      type: 'span',
      start_time: iso(t.startedAt),
      end_time: iso(Math.max(t.startedAt, t.endedAt)),
      status: failed ? 'error' : 'ok',
      output: t.verdict,
      attributes: { 'agent_eval.scorer': t.scorer, 'agent_eval.score': t.verdict.score, 'agent_eval.scored_trace_id': t.traceId },
    },
  ];
  t.calls.forEach((c, i) => {
    spans.push({
      span_id: hexId(`${traceId}:${t.attempt}:call:${i}`, 16),
      parent_span_id: root,
      ...judgeCallSpan({
        ...c,
        input_tokens: c.usage?.input_tokens ?? 0,
        output_tokens: c.usage?.output_tokens ?? 0,
        cached_input_tokens: c.usage?.cached_input_tokens ?? 0,
        started_ms: c.startedAt,
        ended_ms: c.endedAt,
      }),
    });
  });
  return {
    trace_id: traceId,
    name: `online eval: ${t.ruleName} / ${t.scorer}`.slice(0, 1024),
    status: failed ? 'error' : 'ok',
    duration_ms: Math.max(0, t.endedAt - t.startedAt),
    start_time: iso(t.startedAt),
    attributes: {
      'agent_eval.online_rule_id': t.ruleId,
      'agent_eval.online_rule': t.ruleName.slice(0, 1024),
      'agent_eval.scored_trace_id': t.traceId,
      ...scored,
      'agent_eval.score_id': t.scoreId,
      'agent_eval.scorer': t.scorer,
    },
    spans,
  };
}
