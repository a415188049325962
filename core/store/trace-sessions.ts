import type { SessionDetail, SessionList, SessionListQuery } from '../model/trace-session.js';

/**
 * The analytical store's sessions (docs/api.md, "Sessions"): traces grouped by the session id
 * their spans carry (core/model/trace-session-ids.ts, stored with each trace's summary by migration
 * 009). Implemented over ClickHouse by store/clickhouse/trace-session-reads.ts; reached as
 * `AnalyticsStore.sessions`.
 *
 * Promises:
 * - Isolation: only the named project's traces are read; a session id of another project is not found.
 * - Reads only; any call may be repeated. Sessions are derived at read time from the traces'
 *   merged summaries, so a trace written a moment ago counts as soon as the trace list shows it.
 * - What a caller gets is a copy, bounded: a page of at most MAX_SESSION_PAGE sessions, a session
 *   with at most MAX_SESSION_TRACES traces, turn texts cut to SESSION_TURN_TEXT_CAP.
 */
export interface SessionReads {
  listSessions(projectId: string, query: SessionListQuery): Promise<SessionList>;
  /** The session and its traces in order, or null when the project has no trace of it. */
  getSession(projectId: string, sessionId: string): Promise<SessionDetail | null>;
}
