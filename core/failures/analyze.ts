import type { CaseResultView, RunCase } from '../model/eval-run.js';
import type { TraceListItem } from '../model/trace.js';
import { shortScorers } from '../scoring/run-scorers.js';
import { errorTypeOfMessage, exampleText, normalizeFailureText } from './normalize.js';
import { rootCause, type FailureSpan } from './root-cause.js';
import type { Failure } from './signature.js';

/**
 * What failed, for each failed case of a run or each production trace with an error: the
 * signature failure analysis groups by (core/failures/signature.ts) and the example it shows.
 */

/**
 * A failed case's failure: the agent's error when a trial had one (its type and message, and the
 * failing span of the case's trace below the case's own root); else the first scorer under its
 * minimum with its reason (the case's scorer order); else (a conversation whose turn failed) the
 * case's error text. The failing span path is part of every signature where the trace has one.
 */
export function caseFailure(view: CaseResultView, runCase: RunCase | undefined, minScore: number, spans: readonly FailureSpan[] | undefined): Failure {
  const cause = spans ? rootCause(spans, true) : null;
  const spanPath = cause?.path || null;
  const example = { trace_id: view.trace_id, case_index: view.case_index, case_name: view.case_name };
  const agentError = view.trials.find((t) => t.error)?.error;
  if (agentError) {
    return {
      signature: {
        kind: 'agent_error',
        error_type: cause?.span.error_type ?? errorTypeOfMessage(agentError),
        scorer: null,
        span_path: spanPath,
        message: normalizeFailureText(agentError),
      },
      example: { ...example, message: exampleText(agentError) },
    };
  }
  const short = shortScorers(view.details, runCase?.scorers ?? [], runCase?.min_score ?? minScore)[0];
  if (short) {
    const reason = short.detail ? short.detail.reason : 'the scorer gave no score';
    return {
      signature: { kind: 'scorer', error_type: null, scorer: short.name, span_path: spanPath, message: normalizeFailureText(reason) },
      example: { ...example, message: exampleText(reason) },
    };
  }
  const text = view.error ?? 'the case failed';
  return {
    signature: { kind: 'conversation', error_type: null, scorer: null, span_path: spanPath, message: normalizeFailureText(text) },
    example: { ...example, message: exampleText(text) },
  };
}

/**
 * A production trace's failure: its failing span (the earliest error span with no failing child),
 * by path from the root, error type and message; a trace whose failing spans were not read (past
 * the read's cap) by its name alone.
 */
export function traceFailure(trace: Pick<TraceListItem, 'trace_id' | 'name'>, spans: readonly FailureSpan[] | undefined): Failure {
  const cause = spans ? rootCause(spans, false) : null;
  const message = cause ? cause.span.message : '';
  return {
    signature: {
      kind: 'span_error',
      error_type: cause?.span.error_type ?? (message ? errorTypeOfMessage(message) : null),
      scorer: null,
      span_path: cause?.path ?? normalizeFailureText(trace.name),
      message: normalizeFailureText(message),
    },
    example: { trace_id: trace.trace_id, message: exampleText(message || `${trace.name} (no error message)`) },
  };
}
