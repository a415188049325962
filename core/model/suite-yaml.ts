import { CST, isMap, isScalar, Lexer, parseDocument, visit, type YAMLError } from 'yaml';
import { AppError, BadRequestError } from '../errors.js';
import { MAX_JSON_DEPTH } from './pg-json.js';
import { normalizeSuiteKeys } from './suite.js';

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

/** The document as plain values: `undefined` for an empty file, else a mapping. */
function toValue(source: string): unknown {
  const doc = parseDocument(source, {
    schema: 'core',
    customTags: [],
    resolveKnownTags: false,
    merge: false,
    stringKeys: true,
    uniqueKeys: false,
    prettyErrors: false,
  });
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
