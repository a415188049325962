import { NotFoundError } from '../errors.js';
import type { EvalCase } from '../model/case-schema.js';
import type { ScorerRef } from '../model/eval-case.js';
import { parseSuiteDefinition, type SuiteDefinition, type SuiteSummary } from '../model/suite.js';
import type { ScorerRegistry } from '../scoring/scorer.js';
import type { SuiteStore } from '../store/suites.js';

/**
 * The one way cases are added to a stored suite (a reviewed queue item, traces and spans, an
 * imported file): read the latest version under the suite's lock, append, check the whole
 * definition as a PUT would, write the next version. Two additions at once both land, one
 * version each, neither losing the other's cases.
 */

export interface SuiteAppendDeps {
  suites: Pick<SuiteStore, 'get' | 'update'>;
  /** Serializes work on one key across the service's processes (the metadata store's lock). */
  withLock<T>(key: string, work: () => Promise<T>): Promise<T>;
  scorers: ScorerRegistry;
}

/** Builds the new cases (as suite bodies give them) from the latest definition. */
export type CaseBuilder = (def: SuiteDefinition) => Array<Record<string, unknown>>;

export interface Appended {
  /** The version written; null on a preview. */
  summary: SuiteSummary | null;
  /** The new cases as the definition stores them (defaults filled). */
  cases: EvalCase[];
}

const suiteNotFound = () => new NotFoundError('Suite not found', 'SUITE_NOT_FOUND');

/** Appends the cases `build` makes; with `preview`, checks them the same way and writes nothing. */
export async function appendCases(deps: SuiteAppendDeps, projectId: string, suiteId: string, build: CaseBuilder, preview = false): Promise<Appended> {
  const run = async (): Promise<Appended> => {
    const latest = await deps.suites.get(projectId, suiteId);
    if (!latest) throw suiteNotFound();
    const def = latest.definition;
    const added = build(def);
    const next = parseSuiteDefinition({ ...def, cases: [...def.cases, ...added] }, deps.scorers);
    const cases = next.cases.slice(def.cases.length);
    if (preview) return { summary: null, cases };
    const summary = await deps.suites.update(projectId, suiteId, next);
    if (!summary) throw suiteNotFound();
    return { summary, cases };
  };
  return preview ? run() : deps.withLock(`suite:${suiteId}`, run);
}

/** `base`, or `base (2)`, `base (3)`... whichever is not taken; the name chosen is then taken. */
export function freeCaseName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base} (${n})`;
  taken.add(name);
  return name;
}

/**
 * The scorers of a new case that names none: none when the suite has defaultScorers, else
 * exactMatch for an expected output and toolCalls for an expected trajectory (undefined when the
 * case expects neither: the suite's check then asks for scorers).
 */
export function defaultCaseScorers(def: Pick<SuiteDefinition, 'defaultScorers'>, expects: { output: boolean; trajectory: boolean }): ScorerRef[] | undefined {
  if (def.defaultScorers.length) return undefined;
  const refs: ScorerRef[] = [];
  if (expects.output) refs.push({ name: 'exactMatch', config: {} });
  if (expects.trajectory) refs.push({ name: 'toolCalls', config: {} });
  return refs.length ? refs : undefined;
}
