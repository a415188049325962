import { encodeKeysetCursor } from '../../model/keyset-cursor.js';
import {
  MAX_SESSION_TRACES,
  SESSION_TURN_TEXT_CAP,
  type SessionDetail,
  type SessionList,
  type SessionListQuery,
  type SessionLevelScore,
  type SessionScore,
  type SessionSummary,
  type SessionTurn,
} from '../../model/trace-session.js';
import type { TraceSummary } from '../../model/trace.js';
import type { SessionReads } from '../trace-sessions.js';
import {
  SESSION_FILTERS,
  SESSION_FOLD,
  SESSION_LEVEL_SCORES,
  SESSION_ONE,
  SESSION_SCORES,
  TURN_TEXTS,
  sessionCountSql,
  sessionPageSql,
  type SessionFilter,
} from './trace-session-sql.js';
import { listParams } from './trace-stats-sql.js';

type Rows = <T>(query: string, params: Record<string, unknown>) => Promise<T[]>;

interface SessionRow {
  session_id: string;
  trace_count: number | string;
  start_ms: number | string;
  end_ms: number | string;
  error_count: number | string;
  total_input_tokens: number | string;
  total_output_tokens: number | string;
  total_cost: number | null;
  user_ids: string[];
  first_trace_name: string;
}

interface SessionLevelRow {
  session_id: string;
  name: string;
  rule_id: string;
  latest_id: string;
  latest_trace: string;
  latest_value: number;
  latest_reason: string;
  attrs: Record<string, string>;
  created_ms: number | string;
}

const positive = (v: string | undefined): number | null => (v !== undefined && /^\d+$/.test(v) ? Number(v) : null);

function sessionLevelScore(r: SessionLevelRow): SessionLevelScore {
  return {
    name: r.name,
    value: Number(r.latest_value),
    reason: r.latest_reason === '' ? null : r.latest_reason,
    score_id: r.latest_id,
    trace_id: r.latest_trace,
    rule_id: r.rule_id === '' ? null : r.rule_id,
    rule: r.attrs['agent_eval.online_rule'] ?? null,
    generation: positive(r.attrs['agent_eval.session_generation']),
    turns: positive(r.attrs['agent_eval.session_turns']),
    created_at: new Date(Number(r.created_ms)).toISOString(),
  };
}

function sessionSummary(r: SessionRow, scores: SessionScore[], sessionScores: SessionLevelScore[]): SessionSummary {
  const start = Number(r.start_ms);
  const end = Number(r.end_ms);
  return {
    session_id: r.session_id,
    trace_count: Number(r.trace_count),
    start_time: new Date(start).toISOString(),
    end_time: new Date(end).toISOString(),
    duration_ms: Math.max(0, end - start),
    error_count: Number(r.error_count),
    total_input_tokens: Number(r.total_input_tokens),
    total_output_tokens: Number(r.total_output_tokens),
    total_cost: r.total_cost === null ? null : Number(r.total_cost),
    user_ids: r.user_ids,
    first_trace_name: r.first_trace_name,
    scores,
    session_scores: sessionScores,
  };
}

/** Reads of sessions (core/store/trace-sessions.ts) over trace_stats; `summaries` is the trace reads' own. */
export function createSessionReads(rows: Rows, summaries: (projectId: string, traceIds: string[]) => Promise<TraceSummary[]>): SessionReads {
  /** The score means of each given session (SESSION_SCORES) and its own scores (SESSION_LEVEL_SCORES), by session id. */
  async function scoresOf(projectId: string, sessionIds: string[]): Promise<Map<string, { means: SessionScore[]; own: SessionLevelScore[] }>> {
    const out = new Map<string, { means: SessionScore[]; own: SessionLevelScore[] }>();
    if (sessionIds.length === 0) return out;
    const params = { project: projectId, sessions: sessionIds };
    const [means, own] = await Promise.all([
      rows<{ session_id: string; name: string; mean: number; traces: number | string }>(SESSION_SCORES, params),
      rows<SessionLevelRow>(SESSION_LEVEL_SCORES, params),
    ]);
    const of = (id: string) => {
      let scores = out.get(id);
      if (!scores) out.set(id, (scores = { means: [], own: [] }));
      return scores;
    };
    for (const r of means) of(r.session_id).means.push({ name: r.name, mean: Number(r.mean), count: Number(r.traces) });
    for (const r of own) of(r.session_id).own.push(sessionLevelScore(r));
    return out;
  }

  async function listSessions(projectId: string, q: SessionListQuery): Promise<SessionList> {
    const params: Record<string, unknown> = {
      ...listParams(projectId, q),
      userId: q.userId,
      cursorEnd: q.cursor?.endMs,
      cursorSession: q.cursor?.sessionId,
    };
    // A filter applies when its parameter is given.
    const filters = (Object.keys(SESSION_FILTERS) as SessionFilter[]).filter((f) => params[f] !== undefined);
    const page = await rows<{ session_id: string; end_ms: number | string; total: number | string }>(sessionPageSql(filters, q.cursor !== undefined), params);
    let total = page.length ? Number(page[0].total) : 0;
    if (page.length === 0 && q.cursor) {
      const [count] = await rows<{ total: string }>(sessionCountSql(filters), params);
      total = Number(count?.total ?? 0);
    }
    // The page is chosen on cheap states; only its sessions are folded whole (tokens, cost, names).
    const ids = page.slice(0, q.limit).map((r) => r.session_id);
    const [folded, scores] = await Promise.all([
      ids.length ? rows<SessionRow>(SESSION_FOLD, { project: projectId, sessions: ids }) : Promise.resolve([]),
      scoresOf(projectId, ids),
    ]);
    const byId = new Map(folded.map((r) => [r.session_id, r]));
    const sessions = ids
      .map((id) => byId.get(id))
      .filter((r): r is SessionRow => r !== undefined)
      .map((r) => sessionSummary(r, scores.get(r.session_id)?.means ?? [], scores.get(r.session_id)?.own ?? []));
    const last = page.length > q.limit ? page[q.limit - 1] : undefined;
    return {
      sessions,
      total,
      limit: q.limit,
      next_cursor: last ? encodeKeysetCursor({ startMs: Number(last.end_ms), id: last.session_id }) : null,
    };
  }

  async function getSession(projectId: string, sessionId: string): Promise<SessionDetail | null> {
    const [row] = await rows<SessionRow & { trace_ids: string[] }>(SESSION_ONE, { project: projectId, session: sessionId, maxTraces: MAX_SESSION_TRACES + 1 });
    if (!row) return null;
    const ids = row.trace_ids.slice(0, MAX_SESSION_TRACES);
    type TextRow = { trace_id: string; input_text: string; output_text: string; input_truncated: number | boolean; output_truncated: number | boolean };
    const [list, texts, scores] = await Promise.all([
      summaries(projectId, ids),
      ids.length ? rows<TextRow>(TURN_TEXTS, { project: projectId, traces: ids, cap: SESSION_TURN_TEXT_CAP }) : Promise.resolve([]),
      scoresOf(projectId, [sessionId]),
    ]);
    const byId = new Map(list.map((t) => [t.trace_id, t]));
    const textOf = new Map(texts.map((t) => [t.trace_id, t]));
    const traces = ids
      .map((id) => byId.get(id))
      .filter((t): t is TraceSummary => t !== undefined)
      .map((t): SessionTurn => {
        const text = textOf.get(t.trace_id);
        return {
          ...t,
          input: text && text.input_text !== '' ? text.input_text : null,
          output: text && text.output_text !== '' ? text.output_text : null,
          input_truncated: Boolean(Number(text?.input_truncated ?? 0)),
          output_truncated: Boolean(Number(text?.output_truncated ?? 0)),
        };
      });
    const own = scores.get(sessionId);
    return { ...sessionSummary(row, own?.means ?? [], own?.own ?? []), traces, traces_truncated: row.trace_ids.length > MAX_SESSION_TRACES };
  }

  return { listSessions, getSession };
}
