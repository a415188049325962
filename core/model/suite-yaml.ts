import {
  CST,
  isCollection,
  isMap,
  isScalar,
  Lexer,
  parseDocument,
  stringify,
  visit,
  type DocumentOptions,
  type Node,
  type ParseOptions,
  type SchemaOptions,
  type YAMLError,
} from 'yaml';
import { AppError, BadRequestError, ValidationError, type FieldIssue } from '../errors.js';
import type { ScorerRef } from './eval-case.js';
import { MAX_JSON_DEPTH } from './pg-json.js';
import { normalizeSuiteKeys, type SuiteDefinition } from './suite.js';

/**
 * The one parser of YAML suite files, for POST/PUT /api/suites with a YAML body and for the CLI.
 *
 * YAML parsers are easy to make work hard, so the text is bounded before it is parsed:
 * - at most {@link MAX_SUITE_YAML_BYTES};
 * - a lexer pass (cheap, streaming) refuses nesting deeper than {@link MAX_JSON_DEPTH} flow
 *   levels or compact block indicators on one line, lines indented past {@link MAX_INDENT},
 *   more than {@link MAX_ANCHORS} anchors and any tag but the core schema's: deep nesting makes
 *   the `yaml` package report one error per level, and `{a: ` repeated 500,000 times exhausts
 *   the heap;
 * - no custom tags, no `<<` merge keys, keys are plain strings;
 * - aliases expand at most {@link MAX_ALIAS_COUNT} times (the billion-laughs file) and the
 *   expanded value is bounded by {@link MAX_EXPANDED_CHARS};
 * - duplicate keys are found by one pass with a Set per mapping: the package's own `uniqueKeys`
 *   check compares every key with every other (40,000 keys take 10 s).
 */

export const MAX_SUITE_YAML_BYTES = 4 * 1024 * 1024;
export const MAX_ALIAS_COUNT = 100;
export const MAX_ANCHORS = 1000;
/** Deepest indentation of a block line: with the other bounds, keeps nesting far from the stack's limit. */
export const MAX_INDENT = 256;
/** Characters of strings and keys, plus one per value, after aliases are expanded. */
export const MAX_EXPANDED_CHARS = 16 * 1024 * 1024;

/** Tags of the YAML 1.2 core schema; `!` alone forces a string. */
const CORE_TAGS = new Set(['!', '!!str', '!!int', '!!float', '!!bool', '!!null', '!!map', '!!seq']);

function invalid(reason: string): BadRequestError {
  return new BadRequestError(`Invalid suite file: ${reason}`, 'INVALID_SUITE_FILE');
}

/** `at line L, column C` of a UTF-16 offset, counted only when a problem is reported. */
function at(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `at line ${line}, column ${offset - lineStart + 1}`;
}

/** Lexer tokens that mark a state and are not source text. */
const CONTROL_TOKENS = new Set<string | null>(['doc-mode', 'flow-error-end', 'scalar']);

/** The lexer pass: refuses what would make parsing slow or huge, before parsing. */
function prescan(text: string): void {
  const deep = (offset: number) => invalid(`nested more than ${MAX_JSON_DEPTH} levels deep ${at(text, offset)}`);
  let flowDepth = 0;
  let blockIndicators = 0;
  let anchors = 0;
  let offset = 0;
  let lineStart = true;
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    switch (type) {
      case 'flow-map-start':
      case 'flow-seq-start':
        if (++flowDepth > MAX_JSON_DEPTH) throw deep(offset);
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        flowDepth = Math.max(0, flowDepth - 1);
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
      case 'map-value-ind':
        if (flowDepth === 0 && ++blockIndicators > MAX_JSON_DEPTH) throw deep(offset);
        break;
      case 'space':
        if (lineStart && flowDepth === 0 && token.length > MAX_INDENT) throw invalid(`indented more than ${MAX_INDENT} columns ${at(text, offset)}`);
        break;
      case 'anchor':
        if (++anchors > MAX_ANCHORS) throw invalid(`more than ${MAX_ANCHORS} anchors ${at(text, offset)}`);
        break;
      case 'tag':
        if (!CORE_TAGS.has(token)) throw invalid(`tag ${token.slice(0, 64)} is not supported ${at(text, offset)}`);
        break;
      case 'directive-line':
        if (!token.startsWith('%YAML')) throw invalid(`directive ${token.slice(0, 64)} is not supported ${at(text, offset)}`);
        break;
      default:
    }
    if (type === 'newline') blockIndicators = 0;
    // A block scalar's body follows the scalar marker and reads as `space`: it is not indentation.
    if (type === 'scalar') lineStart = false;
    if (!CONTROL_TOKENS.has(type)) {
      lineStart = type === 'newline';
      offset += token.length;
    }
  }
}

function describe(errors: readonly YAMLError[], text: string): string {
  const first = errors[0];
  const message = first.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problems)` : '';
  return `${message} ${at(text, first.pos[0])}${more}`;
}

/** Duplicate keys in one mapping, found with a Set per mapping (linear, unlike `uniqueKeys`). */
function duplicateKey(doc: ReturnType<typeof parseDocument>, text: string): string | undefined {
  let found: string | undefined;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const key = String(pair.key.value);
        if (seen.has(key)) {
          found = `duplicate key '${key.slice(0, 128)}' ${pair.key.range ? at(text, pair.key.range[0]) : ''}`.trimEnd();
          return visit.BREAK;
        }
        seen.add(key);
      }
      return undefined;
    },
  });
  return found;
}

/** Whether `value` expands past `limit` characters; iterative and stops as soon as it does. */
function expandsPast(value: unknown, limit: number): boolean {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    size += typeof v === 'string' ? v.length + 1 : 1;
    if (v !== null && typeof v === 'object') {
      if (Array.isArray(v)) {
        for (const item of v as unknown[]) stack.push(item);
      } else {
        for (const [key, child] of Object.entries(v as Record<string, unknown>)) {
          size += key.length;
          stack.push(child);
        }
      }
    }
    if (size > limit) return true;
  }
  return false;
}

const PARSE_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  schema: 'core',
  customTags: [],
  resolveKnownTags: false,
  merge: false,
  stringKeys: true,
  uniqueKeys: false,
  prettyErrors: false,
};

/** The document as plain values: `undefined` for an empty file, else a mapping. */
function toValue(source: string): unknown {
  const doc = parseDocument(source, PARSE_OPTIONS);
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length) throw invalid(describe(problems, source));
  const duplicate = duplicateKey(doc, source);
  if (duplicate) throw invalid(duplicate);
  if (doc.contents === null) return undefined;
  if (!isMap(doc.contents)) throw invalid('the top level must be a mapping of suite fields (name, cases, scorers...)');
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    if (err instanceof ReferenceError) throw invalid(`aliases expand more than ${MAX_ALIAS_COUNT} times`);
    throw err;
  }
}

/**
 * Parses a suite file into the object {@link parseSuiteDefinition} checks, with the file's key
 * spellings mapped (`scorers` -> `defaultScorers`, `minScore` -> `defaultMinScore`, `agent` ->
 * `agent_id`). An empty file gives `undefined` (so: `name is required`). Throws 400
 * `Invalid suite file: ...` naming the line and column of a syntax error, 413 past the size cap.
 */
export function parseSuiteYaml(text: string): unknown {
  if (text.length > MAX_SUITE_YAML_BYTES || Buffer.byteLength(text, 'utf8') > MAX_SUITE_YAML_BYTES) {
    throw new AppError(413, 'SUITE_FILE_TOO_LARGE', `Invalid suite file: larger than ${MAX_SUITE_YAML_BYTES / 1024 / 1024} MiB (send a larger suite as JSON)`);
  }
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  prescan(source);
  let value: unknown;
  try {
    value = toValue(source);
  } catch (err) {
    // A safety net under the prescan's bounds: recursion in the parser or in toJS.
    if (err instanceof RangeError) throw invalid('nested too deeply');
    throw err;
  }
  if (value === undefined) return undefined;
  if (expandsPast(value, MAX_EXPANDED_CHARS)) throw invalid(`the suite is larger than ${MAX_EXPANDED_CHARS} characters once aliases are expanded`);
  return normalizeSuiteKeys(value);
}

/** The file's spellings of the definition's keys that have one (normalizeSuiteKeys maps them the other way). */
const FILE_SPELLINGS: Record<string, string[]> = { defaultScorers: ['scorers'], defaultMinScore: ['minScore'], agent_id: ['agent', 'agentId'] };

/** `cases[2].turns[0].input` as its keys and indexes; undefined for a field that is not a path (`(body)`). */
function pathOf(field: string): Array<string | number> | undefined {
  const path: Array<string | number> = [];
  for (const m of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) path.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return path.length ? path : undefined;
}

/**
 * Where a definition field (as the schema names it: `cases[2].turns[0].input`) is in a suite
 * file: the line of its value, else of the nearest enclosing one the file has (a missing key: its
 * mapping's), and the name of its case. Undefined when the file has no such place.
 */
function placeOf(doc: ReturnType<typeof parseDocument>, text: string, field: string): string | undefined {
  const path = pathOf(field);
  if (!path || !isMap(doc.contents)) return undefined;
  const top = String(path[0]);
  const key = [top, ...(FILE_SPELLINGS[top] ?? [])].find((k) => doc.has(k));
  if (key === undefined) return undefined;
  let node = doc.get(key, true) as Node | undefined;
  for (const step of path.slice(1)) {
    if (!isCollection(node) || !node.has(step)) break;
    node = node.get(step, true);
  }
  const parts: string[] = [];
  if (key === 'cases' && typeof path[1] === 'number') {
    const name: unknown = doc.getIn(['cases', path[1], 'name']);
    if (typeof name === 'string') parts.push(`case '${name.length > 80 ? `${name.slice(0, 79)}…` : name}'`);
  }
  const offset = node?.range?.[0];
  if (offset !== undefined) parts.push(at(text, offset).replace(/, column \d+$/, ''));
  return parts.length ? parts.join(', ') : undefined;
}

/** `cases[1]: ...` : the field a message of a 400 starts with. */
const LEADING_FIELD = /^((?:[A-Za-z_][\w]*|\[\d+\])(?:\.[A-Za-z_][\w]*|\[\d+\])*):/;

/**
 * A suite file's problem (the schema's 422 naming fields, or a 400 whose message starts with one,
 * e.g. a case of two shapes) with where each is in the file: `cases[1].turns[0].input: is
 * required (case 'refund', at line 12)`. Anything else is returned as it is.
 */
export function withSuiteFileLines(text: string, err: unknown): unknown {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  // Parsed again once, only when there is a problem to place (the value parsed first keeps no positions).
  let doc: ReturnType<typeof parseDocument> | null | undefined;
  const located = (field: string, message: string) => {
    if (doc === undefined) {
      try {
        doc = parseDocument(source, PARSE_OPTIONS);
      } catch {
        doc = null;
      }
    }
    const place = doc ? placeOf(doc, source, field) : undefined;
    return place ? `${message} (${place})` : message;
  };
  if (err instanceof ValidationError) {
    const issues: FieldIssue[] = err.issues.map((i) => ({ field: i.field, message: located(i.field, i.message) }));
    return new ValidationError(issues);
  }
  if (err instanceof BadRequestError) {
    const field = LEADING_FIELD.exec(err.message)?.[1];
    if (field) return new BadRequestError(located(field, err.message), err.code);
  }
  return err;
}

/** A scorer reference as a file writes it: its name alone when that is all it has. */
function fileScorer(ref: ScorerRef): unknown {
  const { name, config, ...rest } = ref;
  const hasConfig = config !== undefined && Object.keys(config).length > 0;
  if (!hasConfig && Object.keys(rest).every((k) => (rest as Record<string, unknown>)[k] === undefined)) return name;
  return { name, ...(hasConfig ? { config } : {}), ...rest };
}

const fileScorers = (refs: readonly ScorerRef[] | undefined) => refs?.map(fileScorer);
const hasFields = (value: Record<string, unknown> | undefined) => value !== undefined && Object.keys(value).length > 0;

/**
 * A stored definition as a suite file (`agent-eval suites show --yaml`): the file's spellings
 * (`scorers`, `minScore`, `agent`), scorers by name when they have no config, fields at their
 * default left out. Parsed again it gives the same definition: scripted turns and simulated users
 * included.
 */
export function suiteYaml(def: SuiteDefinition): string {
  const file: Record<string, unknown> = { name: def.name };
  if (def.description) file.description = def.description;
  if (def.agent_id) file.agent = def.agent_id;
  if (def.defaultScorers.length) file.scorers = fileScorers(def.defaultScorers);
  file.minScore = def.defaultMinScore;
  if (def.aggregation !== 'mean') file.aggregation = def.aggregation;
  file.cases = def.cases.map((c) => {
    const out: Record<string, unknown> = { name: c.name };
    if (c.turns) {
      out.turns = c.turns.map((t) => ({
        input: t.input,
        ...(hasFields(t.expected) ? { expected: t.expected } : {}),
        ...(t.scorers ? { scorers: fileScorers(t.scorers) } : {}),
      }));
    } else if (c.simulation) {
      out.simulation = c.simulation;
    } else {
      out.input = c.input;
    }
    if (hasFields(c.expected)) out.expected = c.expected;
    if (c.scorers) out.scorers = fileScorers(c.scorers);
    if (c.minScore !== undefined) out.minScore = c.minScore;
    if (c.weight !== 1) out.weight = c.weight;
    if (c.metadata) out.metadata = c.metadata;
    if (c.source) out.source = c.source;
    return out;
  });
  // Plain scalars where they read back the same; no anchors (every value written out).
  return stringify(file, { aliasDuplicateObjects: false, lineWidth: 0 });
}
