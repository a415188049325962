import type { TraceSummary } from './trace.js';

/** Largest page of GET /api/sessions. */
export const MAX_SESSION_PAGE = 200;
/** Traces of one session GET /api/sessions/{id} answers with at the most (its first turns, in order). */
export const MAX_SESSION_TRACES = 1000;
/** Characters of a turn's input and output in the session view (code points); the trace has them whole. */
export const SESSION_TURN_TEXT_CAP = 4096;

/** A conversation as the session list shows it: its traces (turns) folded together. */
export interface SessionSummary {
  session_id: string;
  /** Traces of the session (its turns). */
  trace_count: number;
  start_time: string;
  /** The end of its latest trace: the list is newest activity first. */
  end_time: string;
  duration_ms: number;
  /** Traces of the session with an error. */
  error_count: number;
  total_input_tokens: number;
  total_output_tokens: number;
  /** USD over its priced generation spans; null when none is priced. */
  total_cost: number | null;
  /** End users seen in it (at most 5). */
  user_ids: string[];
  /** The name of its first trace. */
  first_trace_name: string;
  /**
   * Per score name (sorted by name): the mean over its scored traces of each trace's latest score
   * of that name, and how many of its traces have one. Scores of the session as a whole are not
   * in these means: they are `session_scores`.
   */
  scores: SessionScore[];
  /**
   * Scores of the session as a whole (online session rules': docs/online-evals.md "Session
   * rules"): per rule and score name, the latest (its latest generation's); sorted by name, then rule.
   */
  session_scores: SessionLevelScore[];
}

/** A score of a whole session, as the session list and view show it (its rule, its latest verdict). */
export interface SessionLevelScore {
  name: string;
  value: number;
  reason: string | null;
  score_id: string;
  /** The trace of the session's last turn the scorer saw (GET /api/scores?trace_id= lists the score there too). */
  trace_id: string;
  /** The online rule that gave it, with its name when scored; null for a session score from elsewhere. */
  rule_id: string | null;
  rule: string | null;
  /** Which idle period of the session it judged (1 the first; a resumed session is judged again), and how many turns it saw. */
  generation: number | null;
  turns: number | null;
  created_at: string;
}

/** A score name's mean over a session's traces. */
export interface SessionScore {
  name: string;
  mean: number;
  /** Traces of the session with a score of this name. */
  count: number;
}

export interface SessionListQuery {
  limit: number;
  userId?: string;
  /** Sessions active at or after / at or before (their latest / first trace). */
  startTime?: Date;
  endTime?: Date;
  hasErrors?: boolean;
  /**
   * Sessions whose mean score of `name` over their turns (as SessionSummary.scores), or whose own
   * latest score of that name (a session rule's, as `session_scores`), is below `value`; sessions
   * with neither are left out.
   */
  scoreBelow?: { name: string; value: number };
  /** Keyset paging: after the session whose latest activity ended at `endMs`, with this id. */
  cursor?: { endMs: number; sessionId: string };
}

export interface SessionList {
  sessions: SessionSummary[];
  /** Sessions the filters match. */
  total: number;
  limit: number;
  next_cursor: string | null;
}

/** One turn of a session: its trace's summary, and the input and output of its root span. */
export interface SessionTurn extends TraceSummary {
  input: string | null;
  output: string | null;
  input_truncated: boolean;
  output_truncated: boolean;
}

export interface SessionDetail extends SessionSummary {
  /** Its traces, oldest first (at most MAX_SESSION_TRACES). */
  traces: SessionTurn[];
  /** More traces than MAX_SESSION_TRACES: the list above is the first ones; GET /api/traces?session_id= pages through all. */
  traces_truncated: boolean;
}
