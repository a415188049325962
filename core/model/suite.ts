import { z } from 'zod';
import { BadRequestError, ValidationError, type FieldIssue } from '../errors.js';
import type { ScorerRegistry } from '../scoring/scorer.js';
import { validate } from '../validate.js';
import { AGGREGATIONS, ScorerRefListSchema, type ScorerRef } from './eval-case.js';
import { caseShapeProblem, conversationScorerProblem, EvalCaseSchema, turnScorerLists, type EvalCase } from './case-schema.js';
import { asId } from './ids.js';
import { jsonProblems, MAX_REPORTED_ISSUES, pgText } from './pg-json.js';

/**
 * A test suite (SPEC "Test suite and test case"): named cases with what they expect, the
 * scorers that judge them and how scores combine. The same definition arrives as a JSON body,
 * a YAML body or a YAML file of the CLI (core/model/suite-yaml.ts).
 */

export const MAX_SUITE_CASES = 10_000;

const ScoreBound = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');

/**
 * One version of a suite. Unknown top-level keys are refused (a misspelt `defaultScorer` would
 * otherwise be dropped silently). `agent_id` names an agent by id or name; the API checks it
 * exists and stores the agent's id, so renaming the agent does not break the suite.
 */
export const SuiteDefinitionSchema = z.strictObject({
  name: asId(z.string().max(256).trim().min(1)),
  description: pgText(4096).nullish(),
  agent_id: asId(z.string().max(256).trim().min(1)).nullish(),
  defaultScorers: ScorerRefListSchema.default([]),
  defaultMinScore: ScoreBound.default(0.7),
  aggregation: z.enum(AGGREGATIONS).default('mean'),
  cases: z.array(EvalCaseSchema).min(1, 'a suite needs at least one case').max(MAX_SUITE_CASES),
});
export type SuiteDefinition = z.output<typeof SuiteDefinitionSchema>;

/** Other spellings of the definition's keys: the CLI file's `scorers` and `minScore`, the run API's `agentId`. */
const KEY_ALIASES: Record<string, keyof SuiteDefinition> = {
  scorers: 'defaultScorers',
  minScore: 'defaultMinScore',
  agent: 'agent_id',
  agentId: 'agent_id',
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Maps the alias keys of a suite body or file to the definition's own (`scorers` ->
 * `defaultScorers`...). Giving a key and its alias at once is a 422 naming both.
 */
export function normalizeSuiteKeys(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const entries: Array<[string, unknown]> = [];
  const issues: FieldIssue[] = [];
  const from = new Map<string, string>();
  for (const [key, value] of Object.entries(raw)) {
    const target = Object.hasOwn(KEY_ALIASES, key) ? KEY_ALIASES[key] : key;
    const earlier = from.get(target);
    if (earlier !== undefined) {
      issues.push({ field: key, message: `give either ${earlier} or ${key}, not both` });
      continue;
    }
    from.set(target, key);
    entries.push([target, value]);
  }
  if (issues.length) throw new ValidationError(issues);
  // fromEntries defines own properties: a `__proto__` key stays a key (and is refused as unknown).
  return Object.fromEntries(entries);
}

/** The scorers that judge `c`: its own when it lists any, else the suite's defaultScorers. */
export function effectiveScorers(suite: Pick<SuiteDefinition, 'defaultScorers'>, c: Pick<EvalCase, 'scorers'>): ScorerRef[] {
  return c.scorers ?? suite.defaultScorers;
}

function missing(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function bounded(issues: FieldIssue[]): FieldIssue[] {
  if (issues.length <= MAX_REPORTED_ISSUES) return issues;
  return [...issues.slice(0, MAX_REPORTED_ISSUES), { field: '(body)', message: `${issues.length - MAX_REPORTED_ISSUES} more problems not shown` }];
}

/** Problems zod cannot see: duplicate case names, cases without scorers, scorers the registry refuses. */
function definitionIssues(def: SuiteDefinition, scorers: ScorerRegistry): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of scorers.check(def.defaultScorers)) issues.push({ field: `defaultScorers[${issue.index}]`, message: issue.message });
  const firstIndex = new Map<string, number>();
  def.cases.forEach((c, i) => {
    const earlier = firstIndex.get(c.name);
    if (earlier !== undefined)
      issues.push({ field: `cases[${i}].name`, message: `case names must be unique in a suite: '${c.name}' is also cases[${earlier}].name` });
    else firstIndex.set(c.name, i);
    if (c.scorers === undefined) {
      if (def.defaultScorers.length === 0)
        issues.push({ field: `cases[${i}].scorers`, message: 'a case needs at least one scorer: list scorers here or in the suite defaultScorers' });
    } else if (c.scorers.length === 0) {
      issues.push({ field: `cases[${i}].scorers`, message: 'must not be empty: omit it to use the suite defaultScorers' });
    } else {
      for (const issue of scorers.check(c.scorers)) issues.push({ field: `cases[${i}].scorers[${issue.index}]`, message: issue.message });
    }
    for (const { field, refs } of turnScorerLists({ ...c, field: `cases[${i}]` }))
      for (const issue of scorers.check(refs ?? [])) issues.push({ field: `${field}[${issue.index}]`, message: issue.message });
  });
  return issues;
}

/** A suite naming a scorer that cannot run here (an LLM judge with no provider configured) is a 400, not failed cases later. */
function assertRunnable(def: SuiteDefinition, scorers: ScorerRegistry): void {
  const placed = def.cases.map((c, i) => ({ ...c, field: `cases[${i}]` }));
  const lists = [
    { field: 'defaultScorers', refs: def.defaultScorers },
    ...placed.flatMap((c) => [{ field: `${c.field}.scorers`, refs: c.scorers }, ...turnScorerLists(c)]),
  ];
  for (const { field, refs } of lists) {
    const [issue] = scorers.unavailable(refs ?? []);
    if (issue) throw new BadRequestError(`${field}[${issue.index}]: ${issue.message}`, 'SCORER_UNAVAILABLE');
  }
  const misplaced = conversationScorerProblem(
    placed,
    { field: 'defaultScorers', refs: def.defaultScorers },
    (name) => scorers.get(name)?.readsConversation === true,
  );
  if (misplaced) throw new BadRequestError(misplaced, 'CONVERSATION_SCORER');
}

/**
 * Checks a suite body or file (after {@link normalizeSuiteKeys}) and returns the definition with
 * defaults filled and scorers in object form: what a version stores, so a version means the same
 * thing however defaults change later. A missing name is the SPEC's 400 `name is required`;
 * every other problem is a 422 naming its field (`cases[3].name`, `cases[0].scorers[1]`...).
 */
export function parseSuiteDefinition(raw: unknown, scorers: ScorerRegistry): SuiteDefinition {
  if (!isRecord(raw) || missing(raw.name)) throw new BadRequestError('name is required', 'NAME_REQUIRED');
  if (Array.isArray(raw.cases)) {
    for (const [i, c] of raw.cases.entries()) {
      const problem = caseShapeProblem(c);
      if (problem) throw new BadRequestError(`cases[${i}]: ${problem}`, 'CASE_SHAPE');
    }
  }
  const storable = jsonProblems(raw);
  if (storable.length) throw new ValidationError(bounded(storable));
  let def: SuiteDefinition;
  try {
    def = validate(SuiteDefinitionSchema, raw);
  } catch (err) {
    if (err instanceof ValidationError) throw new ValidationError(bounded(err.issues));
    throw err;
  }
  const issues = definitionIssues(def, scorers);
  if (issues.length) throw new ValidationError(bounded(issues));
  assertRunnable(def, scorers);
  return def;
}

/** A suite as GET /api/suites lists it (and POST / PUT answer): its latest version, summarized. */
export interface SuiteSummary {
  id: string;
  name: string;
  description: string | null;
  version: number;
  case_count: number;
  agent_id: string | null;
  created_at: string;
  updated_at: string;
}

/** One version of a suite, whole (GET /api/suites/{id}?version=N). */
export interface SuiteVersion {
  id: string;
  name: string;
  version: number;
  latest_version: number;
  definition: SuiteDefinition;
  /** When the suite was created (its version 1). */
  created_at: string;
  /** When the suite's latest version was written. */
  updated_at: string;
  /** When this version was written. */
  version_created_at: string;
}

/** One entry of GET /api/suites/{id}/versions. */
export interface SuiteVersionInfo {
  version: number;
  created_at: string;
  case_count: number;
}

export interface SuiteList {
  suites: SuiteSummary[];
  total: number;
  limit: number;
  offset: number;
}
