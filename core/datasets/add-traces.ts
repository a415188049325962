import { ConflictError, NotFoundError } from '../errors.js';
import type { CasesAdded, FromTracesBody } from '../model/dataset.js';
import type { SuiteDefinition } from '../model/suite.js';
import { traceFilterQuery } from '../model/trace-filter.js';
import type { AnalyticsStore } from '../store/analytics.js';
import { caseFromTrace, conversationFromTraces, type TraceForCase } from './case-from-trace.js';
import { appendCases, defaultCaseScorers, freeCaseName, type SuiteAppendDeps } from './suite-append.js';
import { readSessionForCase, readSpanForCase, readTracesForCases, traceIdsMatching } from './trace-source.js';

/**
 * POST /api/suites/{id}/cases/from-traces (docs/api.md "Datasets from production"): traces by
 * id, one span, a session as a conversation, or the traces a filter selects (newest first, at
 * most `cap`) become cases of the suite's next version, each recording its source trace.
 */

export interface AddTracesDeps {
  analytics: Pick<AnalyticsStore, 'getTrace' | 'getSpan' | 'listTraces'>;
  append: SuiteAppendDeps;
}

/** Longest case name made from a trace's or span's name. */
const MAX_MADE_NAME = 500;

function baseName(t: TraceForCase): string {
  const span = t.spanId === undefined ? undefined : t.spans.find((s) => s.span_id === t.spanId);
  const label = span ? `${span.name}: ${span.span_id}` : `${t.trace.name || 'trace'}: ${t.trace.trace_id}`;
  return label.slice(0, MAX_MADE_NAME);
}

/** The case name: the one asked for (409 when the suite has it), else a made one no case has. */
function nameOf(def: SuiteDefinition, taken: Set<string>, asked: string | undefined, base: string): string {
  if (asked === undefined) return freeCaseName(base, taken);
  if (taken.has(asked)) throw new ConflictError(`Suite '${def.name}' already has a case named '${asked}'`, 'CASE_NAME_TAKEN');
  taken.add(asked);
  return asked;
}

function withScorers(def: SuiteDefinition, c: Record<string, unknown>, body: FromTracesBody): Record<string, unknown> {
  const expected = (c.expected ?? {}) as Record<string, unknown>;
  const scorers = body.scorers ?? defaultCaseScorers(def, { output: 'output' in expected, trajectory: 'trajectory' in expected });
  return scorers ? { ...c, scorers } : c;
}

/** A session's conversation: the default scorers go to each turn (a turn is scored on its own answer), turnScores to the case. */
function sessionCase(def: SuiteDefinition, sessionId: string, traces: TraceForCase[], body: FromTracesBody, taken: Set<string>): Record<string, unknown> {
  const name = nameOf(def, taken, body.case_name, `session: ${sessionId}`.slice(0, MAX_MADE_NAME));
  const c = conversationFromTraces(sessionId, traces, body, name);
  if (!c) throw new NotFoundError(`Session with ID '${sessionId}' not found`, 'SESSION_NOT_FOUND');
  if (body.scorers) return { ...c, scorers: body.scorers };
  const turns = (c.turns as Array<{ expected: Record<string, unknown> }>).map((turn) => {
    const scorers = defaultCaseScorers(def, { output: 'output' in turn.expected, trajectory: 'trajectory' in turn.expected });
    return scorers ? { ...turn, scorers } : turn;
  });
  // turnScores: the conversation's score from its turns' (docs/evals.md "Conversations").
  return { ...c, turns, scorers: [{ name: 'turnScores', config: {} }] };
}

/** Adds the cases (or, with `preview`, answers them without writing a version). */
export async function addTraceCases(deps: AddTracesDeps, projectId: string, suiteId: string, body: FromTracesBody): Promise<CasesAdded> {
  if (!(await deps.append.suites.get(projectId, suiteId))) throw new NotFoundError('Suite not found', 'SUITE_NOT_FOUND');
  let truncated = false;
  let traces: TraceForCase[];
  if (body.span_id !== undefined) traces = [await readSpanForCase(deps.analytics, projectId, body.span_id)];
  else if (body.session_id !== undefined) traces = await readSessionForCase(deps.analytics, projectId, body.session_id);
  else if (body.filter !== undefined) {
    const picked = await traceIdsMatching(deps.analytics, projectId, traceFilterQuery(body.filter), body.cap);
    truncated = picked.truncated;
    traces = await readTracesForCases(deps.analytics, projectId, picked.traceIds);
  } else traces = await readTracesForCases(deps.analytics, projectId, [...new Set(body.trace_ids)]);

  if (!traces.length) return { suite: null, cases: [], truncated };
  const build = (def: SuiteDefinition) => {
    const taken = new Set(def.cases.map((c) => c.name));
    if (body.session_id !== undefined) return [sessionCase(def, body.session_id, traces, body, taken)];
    return traces.map((t) => {
      const c = caseFromTrace(t, body, nameOf(def, taken, body.case_name, baseName(t)));
      if (!c) throw new NotFoundError(`Trace with ID '${t.trace.trace_id}' has no spans`, 'TRACE_NOT_FOUND');
      return withScorers(def, c, body);
    });
  };
  const { summary, cases } = await appendCases(deps.append, projectId, suiteId, build, body.preview);
  return { suite: summary, cases, truncated };
}
