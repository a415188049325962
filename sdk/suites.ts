import fs from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { AppError, ValidationError } from '../core/errors.js';
import { normalizeSuiteKeys, parseSuiteDefinition, type SuiteDefinition, type SuiteDefinitionSchema } from '../core/model/suite.js';
import { parseSuiteYaml, withSuiteFileLines } from '../core/model/suite-yaml.js';
import type { Scorer } from '../core/scoring/index.js';
import { AgentEvalError } from './errors.js';
import { isScorer, scorerRegistry } from './scorers.js';

/**
 * Suites in code or in YAML files, read by the service's one suite parser and schema
 * (core/model/suite.ts, core/model/suite-yaml.ts): a file the SDK accepts is one the API and the
 * CLI accept, with the same messages.
 */

/** A checked suite: its definition (defaults filled, scorers in object form) and the custom scorers it uses. */
export interface Suite {
  readonly definition: SuiteDefinition;
  /** Custom scorers (defineScorer) the suite named by object; evaluate() runs them. */
  readonly scorers: readonly Scorer[];
  /** The file it was read from, if any. */
  readonly file?: string;
}

type ScorerRefInput = z.input<typeof SuiteDefinitionSchema>['defaultScorers'] extends (infer R)[] | undefined ? R | Scorer : never;

/** A suite as code writes it: the definition's fields (or the file's aliases), where a scorer may also be a `defineScorer()` object. */
export type SuiteDefinitionInput = Omit<z.input<typeof SuiteDefinitionSchema>, 'defaultScorers' | 'cases'> & {
  defaultScorers?: ScorerRefInput[];
  /** Alias of `defaultScorers`. */
  scorers?: ScorerRefInput[];
  /** Alias of `defaultMinScore`. */
  minScore?: number;
  /** Alias of `agent_id`. */
  agent?: string;
  cases: Array<
    Omit<CaseInput, 'scorers' | 'turns'> & {
      scorers?: ScorerRefInput[];
      /** A scripted conversation: the user's turns, each with what its answer should satisfy. */
      turns?: Array<Omit<NonNullable<CaseInput['turns']>[number], 'scorers'> & { scorers?: ScorerRefInput[] }>;
    }
  >;
};

type CaseInput = z.input<typeof SuiteDefinitionSchema>['cases'][number];

/** A suite file or definition broke a rule: `Invalid suite file: {errors}` (SPEC), each field named. */
export class InvalidSuiteError extends AgentEvalError {
  constructor(
    message: string,
    /** Each problem, `field: message`. */
    readonly problems: string[],
  ) {
    super(message);
  }
}

/** The SPEC's CLI messages for files: `File not found: {file}`, `Suite must be a YAML file: {suite}`. */
export class SuiteFileError extends AgentEvalError {}

/** Replaces scorer objects by their names, collecting them. */
function extractScorers(list: unknown, found: Scorer[]): unknown {
  if (!Array.isArray(list)) return list;
  return list.map((ref: unknown) => {
    if (isScorer(ref)) {
      found.push(ref);
      return ref.name;
    }
    return ref;
  });
}

/** A case (and its scripted turns) with scorer objects replaced by their names. */
function withScorerNames(c: unknown, found: Scorer[]): unknown {
  if (!c || typeof c !== 'object' || Array.isArray(c)) return c;
  const out: Record<string, unknown> = { ...c };
  if ('scorers' in out) out.scorers = extractScorers(out.scorers, found);
  if (Array.isArray(out.turns))
    out.turns = out.turns.map((t: unknown) => (t && typeof t === 'object' && 'scorers' in t ? { ...t, scorers: extractScorers(t.scorers, found) } : t));
  return out;
}

function invalid(raw: unknown, text?: string): never {
  // A file's problems name their line and case too.
  const err = text === undefined ? raw : withSuiteFileLines(text, raw);
  if (err instanceof ValidationError) {
    const problems = err.issues.map((i) => `${i.field}: ${i.message}`);
    throw new InvalidSuiteError(`Invalid suite file: ${problems.join('; ')}`, problems);
  }
  if (err instanceof AppError) {
    // The YAML parser's messages already say `Invalid suite file: ...`; `name is required` does not.
    const message = err.message.startsWith('Invalid suite file:') ? err.message : `Invalid suite file: ${err.message}`;
    throw new InvalidSuiteError(message, [message.slice('Invalid suite file: '.length)]);
  }
  throw err;
}

function check(raw: unknown, custom: readonly Scorer[], file?: string, text?: string): Suite {
  const found: Scorer[] = [...custom];
  let normalized: unknown;
  try {
    normalized = normalizeSuiteKeys(raw);
  } catch (err) {
    invalid(err, text);
  }
  if (normalized && typeof normalized === 'object' && !Array.isArray(normalized)) {
    const obj = { ...(normalized as Record<string, unknown>) };
    obj.defaultScorers = extractScorers(obj.defaultScorers, found);
    if (Array.isArray(obj.cases)) obj.cases = obj.cases.map((c: unknown) => withScorerNames(c, found));
    normalized = obj;
  }
  let registry;
  try {
    registry = scorerRegistry(found);
  } catch (err) {
    throw new InvalidSuiteError(`Invalid suite file: ${(err as Error).message}`, [(err as Error).message]);
  }
  try {
    const definition = parseSuiteDefinition(normalized, registry);
    const used = new Set(
      [...definition.defaultScorers, ...definition.cases.flatMap((c) => [...(c.scorers ?? []), ...(c.turns ?? []).flatMap((t) => t.scorers ?? [])])].map(
        (s) => s.name,
      ),
    );
    return { definition, scorers: [...new Map(found.filter((s) => used.has(s.name)).map((s) => [s.name, s])).values()], ...(file ? { file } : {}) };
  } catch (err) {
    invalid(err, text);
  }
}

/**
 * A suite in code. Scorers may be names (`'contains'`, `{name: 'latency', config: {maxMs: 2000}}`)
 * or `defineScorer()` objects. Throws {@link InvalidSuiteError} naming each bad field.
 */
export function defineSuite(definition: SuiteDefinitionInput, options: { scorers?: readonly Scorer[] } = {}): Suite {
  return check(definition, options.scorers ?? []);
}

/**
 * A suite file (`.yaml` / `.yml`), read with the service's parser. Custom scorers the file names
 * are given in `scorers`. Throws `File not found: {file}`, `Suite must be a YAML file: {suite}`
 * or `Invalid suite file: {errors}` (the SPEC's CLI messages).
 */
export async function loadSuite(file: string, options: { scorers?: readonly Scorer[] } = {}): Promise<Suite> {
  if (!/\.ya?ml$/i.test(file)) throw new SuiteFileError(`Suite must be a YAML file: ${file}`);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      throw new SuiteFileError(`File not found: ${file}`, { cause: err });
    throw err;
  }
  let raw: unknown;
  try {
    raw = parseSuiteYaml(text);
  } catch (err) {
    invalid(err);
  }
  return check(raw, options.scorers ?? [], path.resolve(file), text);
}

/** Is `value` a checked suite? */
export function isSuite(value: unknown): value is Suite {
  return typeof value === 'object' && value !== null && 'definition' in value && Array.isArray((value as Suite).scorers);
}
