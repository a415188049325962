import { ConflictError } from '../errors.js';
import type { ScorerRef } from '../model/eval-case.js';
import { pgSafeJson, pgSafeText } from '../model/pg-json.js';
import type { SuiteDefinition } from '../model/suite.js';
import { freeCaseName } from '../datasets/suite-append.js';

/**
 * A reviewed queue item as a new case of a suite (POST /api/queues/{id}/items/{itemId}/to-suite,
 * docs/feedback.md): the trace's input, the reviewer's correction as the expected output.
 */

/** A trace's input as a case input: JSON text becomes its value, other text stays text. */
export function caseInput(text: string): unknown {
  const safe = pgSafeText(text);
  const trimmed = safe.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(pgSafeJson(JSON.parse(trimmed)));
    } catch {
      return safe;
    }
  }
  return safe;
}

export interface ReviewedCase {
  queueName: string;
  traceId: string;
  /** The trace's input, as stored. */
  traceInput: string;
  /** The reviewer's corrected output. */
  corrected: unknown;
  /** The case's name; default `{queue}: {trace}` (made unique). */
  caseName?: string;
  /** The case's own scorers; default: none when the suite has defaultScorers, else exactMatch. */
  scorers?: ScorerRef[];
}

/** The new case, as a suite body's case (parsed with the suite); 409 when its given name is taken. */
export function reviewedCase(def: Pick<SuiteDefinition, 'name' | 'cases' | 'defaultScorers'>, r: ReviewedCase): Record<string, unknown> {
  const taken = new Set(def.cases.map((c) => c.name));
  if (r.caseName !== undefined && taken.has(r.caseName)) {
    throw new ConflictError(`Suite '${def.name}' already has a case named '${r.caseName}'`, 'CASE_NAME_TAKEN');
  }
  const caseName = r.caseName ?? freeCaseName(`${r.queueName}: ${r.traceId}`.slice(0, 500), taken);
  const scorers = r.scorers ?? (def.defaultScorers.length ? undefined : [{ name: 'exactMatch', config: {} }]);
  const newCase: Record<string, unknown> = {
    name: caseName,
    input: caseInput(r.traceInput),
    expected: { output: r.corrected },
    source: { trace_id: r.traceId },
  };
  if (scorers) newCase.scorers = scorers;
  return newCase;
}
