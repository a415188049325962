import type { ScriptedTurn, Simulation } from './conversation.js';
import type { ScorerRef } from './eval-case.js';
import type { RunCase } from './eval-run.js';
import { effectiveScorers, type SuiteDefinition } from './suite.js';

/**
 * A run's cases, built one way wherever a run is made: from a stored or local suite (the first
 * family, the SDK's `evaluate()` and `startRun()`) or from an inline dataset (`POST /api/runs`,
 * managed or local). Each case carries its scorers already resolved (its own, else the suite's
 * or the run's) and its own min score or null (the run's then applies).
 */

/** A case as a new run stores it (its index is its position). */
export type NewRunCase = Omit<RunCase, 'case_index'>;

/** One item of `POST /api/runs`'s `dataset.items`, as the schema outputs it. */
export interface DatasetItem {
  name?: string;
  input?: unknown;
  turns?: ScriptedTurn[];
  simulation?: Simulation;
  expected: Record<string, unknown>;
  scorers?: ScorerRef[];
  minScore?: number;
  weight: number;
}

/** A case's conversation as a run stores it: `turns` or `simulation`, else neither (a single call). */
const conversationOf = (c: { turns?: ScriptedTurn[] | null; simulation?: Simulation | null }) => ({
  ...(c.turns ? { turns: c.turns } : {}),
  ...(c.simulation ? { simulation: c.simulation } : {}),
});

/** The cases of a suite definition. */
export function casesOfSuite(def: Pick<SuiteDefinition, 'cases' | 'defaultScorers'>): NewRunCase[] {
  return def.cases.map((c) => ({
    name: c.name,
    input: c.input,
    ...conversationOf(c),
    expected: c.expected,
    scorers: effectiveScorers(def, c),
    min_score: c.minScore ?? null,
    weight: c.weight,
  }));
}

/** The cases of an inline dataset: an item without a name is `item {n}`, without scorers the run's. */
export function casesOfDataset(items: readonly DatasetItem[], scorers: ScorerRef[]): NewRunCase[] {
  return items.map((item, i) => ({
    name: item.name ?? `item ${i + 1}`,
    input: item.input,
    ...conversationOf(item),
    expected: item.expected,
    scorers: item.scorers ?? scorers,
    min_score: item.minScore ?? null,
    weight: item.weight,
  }));
}

/** The cases with their indexes, as a stored run's. */
export function indexedCases(cases: readonly NewRunCase[]): RunCase[] {
  return cases.map((c, i) => ({ case_index: i, ...c }));
}

/** The cases as `POST /api/runs` dataset items (what a client sends for a suite it read itself). */
export function datasetItems(cases: readonly NewRunCase[]): Array<Required<Pick<DatasetItem, 'name' | 'scorers'>> & DatasetItem> {
  return cases.map((c) => ({
    name: c.name,
    ...(c.turns || c.simulation ? conversationOf(c) : { input: c.input }),
    expected: c.expected,
    scorers: c.scorers,
    ...(c.min_score === null ? {} : { minScore: c.min_score }),
    weight: c.weight,
  }));
}
