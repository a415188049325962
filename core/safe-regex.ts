import { RE2JS, RE2JSException } from 're2js';
import { chargePatternCheck, PATTERN_CHECK_BUDGET, PATTERN_CHECK_FIXED_COST } from './safe-regex/check-budget.js';
import { patternSize } from './safe-regex/pattern-size.js';
import { regexPool, type PatternSearch, type PatternSearchOptions, type PatternSearchOutcome } from './safe-regex/pool.js';

/**
 * The one way a user-supplied regular expression is compiled and run (the `regex` scorer's
 * patterns, wherever they enter: suites, runs, online rules, the SDK). Patterns run on RE2
 * (re2js, a pure-JS port): matching never backtracks, so a pattern such as `(a+)+b` costs at
 * most O(pattern size × text length) instead of exponential time. Constructs RE2 cannot run in
 * linear time (backreferences, lookaround, atomic groups, possessive quantifiers...) are refused
 * with a {@link PatternError} naming the construct, so an API request can be refused with a 422.
 *
 * Linear is still not free: re2js's NFA, the path a hostile pattern forces, was measured at up
 * to ~30 ns per program instruction per character. So a search reads at most
 * {@link SCAN_WORK_BUDGET} / program size characters ({@link SafeRegex.scanLimit}), which keeps
 * one search under ~100 ms whatever the pattern. Scoring does not search here but through
 * {@link searchPatterns}: on worker threads (core/safe-regex/pool.ts), off the event loop the
 * API shares, within a time budget per case and per run. Compiling here is what checks a
 * pattern when it enters (suites, runs, rules: a 422), and what the workers run.
 */

export {
  createRegexPool,
  REGEX_CASE_BUDGET_MS,
  REGEX_RUN_BUDGET_MS,
  REGEX_WORKERS,
  regexPool,
  setRegexPool,
  type PatternSearch,
  type PatternSearchOptions,
  type PatternSearchOutcome,
  type RegexPool,
  type RegexPoolStats,
} from './safe-regex/pool.js';

/**
 * Searches one case's `patterns` (with `flags`) in `text` on the process's regex pool, off the
 * event loop: each pattern's leftmost match as {@link SafeRegex.search} finds it, or why the
 * case could not be searched (a pattern that does not compile, a budget that ran out).
 */
export function searchPatterns(search: PatternSearch, options?: PatternSearchOptions): Promise<PatternSearchOutcome> {
  return regexPool().search(search, options);
}

/** Longest pattern accepted (characters). */
export const MAX_PATTERN_LENGTH = 1_000;
/**
 * Largest pattern accepted, in program instructions as estimated from its text (pattern-size.ts):
 * ~25 ms of compiling at most. Ten `[a-z]{1000}` fit; `a{1000}` written 142 times (142,000) does not.
 */
export const MAX_PATTERN_SIZE = 10_000;
/** Most characters one search reads, whatever the pattern. */
export const MAX_SCAN_CHARS = 1_048_576;
/** Program instructions × characters one search may cost: its scan limit is this over the program size. */
export const SCAN_WORK_BUDGET = 3_000_000;

/** Appended to every refusal: the syntax is RE2's, not JavaScript's. */
export const RE2_NOTE = '(patterns run on RE2: docs/scorers.md)';

/** A pattern (or its flags) that the safe engine refuses; `message` says why, without the pattern. */
export class PatternError extends Error {
  override readonly name = 'PatternError';
}

/** A compiled pattern. Stateless: no `lastIndex`, safe to share. */
export interface SafeRegex {
  readonly source: string;
  readonly flags: string;
  /** Most characters of a text {@link search} reads: {@link SCAN_WORK_BUDGET} over the program size, at most {@link MAX_SCAN_CHARS}. */
  readonly scanLimit: number;
  /** The leftmost match (as JavaScript would find it) in the first {@link scanLimit} characters of `text`. */
  search(text: string): SearchResult;
}

export interface SearchResult {
  /** Offset and length in UTF-16 code units, as `String.prototype.slice` counts. */
  match: { index: number; length: number } | null;
  /** Characters read: `text.length` unless the text was longer than the scan limit. */
  scanned: number;
}

/** The flags and what they mean on RE2; `u` is accepted and changes nothing (RE2 always matches code points). */
const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL, u: 0 };

/** Why `flags` are refused, or undefined when they are fine. */
export function flagsProblem(flags: string): string | undefined {
  const seen = new Set<string>();
  for (const flag of flags) {
    if (flag === 'v') return `flag v (Unicode sets) is not supported ${RE2_NOTE}`;
    if (!Object.hasOwn(FLAGS, flag)) return `may hold only the flags i, m, s and u (got ${JSON.stringify(flag)}; g and y mean nothing here)`;
    if (seen.has(flag)) return `holds the flag ${flag} twice`;
    seen.add(flag);
  }
  return undefined;
}

/** Why `pattern` (with `flags`) is refused, or undefined when it compiles. */
export function patternProblem(pattern: string, flags = ''): string | undefined {
  try {
    compileSafeRegex(pattern, flags);
    return undefined;
  } catch (err) {
    if (err instanceof PatternError) return err.message;
    throw err;
  }
}

/** Compiles `pattern` (JavaScript `RegExp` source, as far as RE2 can run it) with `flags` (i, m, s, u); throws {@link PatternError}. */
export function compileSafeRegex(pattern: string, flags = ''): SafeRegex {
  const flagIssue = flagsProblem(flags);
  if (flagIssue) throw new PatternError(flagIssue);
  if (pattern.length > MAX_PATTERN_LENGTH) throw new PatternError(`is longer than ${MAX_PATTERN_LENGTH} characters`);
  const size = patternSize(pattern);
  if (size > MAX_PATTERN_SIZE) {
    throw new PatternError(`is too large: its repetition counts expand it to about ${size} instructions, at most ${MAX_PATTERN_SIZE} ${RE2_NOTE}`);
  }
  if (!chargePatternCheck(size + PATTERN_CHECK_FIXED_COST)) {
    throw new PatternError(
      `was not checked: this request's patterns together are too large to check (over ${PATTERN_CHECK_BUDGET} instructions); send fewer or smaller patterns per request`,
    );
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(
      toRe2Syntax(pattern),
      [...flags].reduce((bits, f) => bits | FLAGS[f], 0),
    );
  } catch (err) {
    if (!(err instanceof RE2JSException)) throw err;
    const why = err.message.replace(/^error parsing regexp: /, '');
    throw new PatternError(`is not a valid regular expression: ${why} ${RE2_NOTE}`, { cause: err });
  }
  const scanLimit = Math.max(1, Math.min(MAX_SCAN_CHARS, Math.floor(SCAN_WORK_BUDGET / Math.max(1, re.programSize()))));
  return {
    source: pattern,
    flags,
    scanLimit,
    search(text) {
      const read = readable(text, scanLimit);
      if (read.length === text.length) {
        const m = re.exec(read) as (string[] & { index: number }) | null;
        return { match: m ? { index: m.index, length: m[0].length } : null, scanned: read.length };
      }
      // Cut short: the text goes on after what is read, so `$` and `\z` must not match at the
      // cut. A character after it (one no text carries) keeps them from it; a match that would
      // take that character in is a match of text not read, so none.
      const m = re.exec(read + CUT) as (string[] & { index: number }) | null;
      const match = m && m.index + m[0].length <= read.length ? { index: m.index, length: m[0].length } : null;
      return { match, scanned: read.length };
    },
  };
}

/** `text` cut to at most `limit` code units, never between the halves of a surrogate pair. */
/** What stands after a text cut short: U+FFFF, a noncharacter, never an end of text. */
const CUT = '\uffff';

function readable(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const high = text.charCodeAt(limit - 1);
  return text.slice(0, high >= 0xd800 && high <= 0xdbff ? limit - 1 : limit);
}

function refuse(construct: string): never {
  throw new PatternError(`${construct} is not supported ${RE2_NOTE}`);
}

const HEX = /^[0-9A-Fa-f]{4}$/;

/**
 * JavaScript pattern syntax as RE2 reads it: `\uXXXX` and `\u{X}` become `\x{X}` (a surrogate
 * pair one code point), `\cX` a control character, `[]` and `[^]` the empty and the full class.
 * Constructs RE2 cannot run are refused here by name; anything else RE2 does not know is refused
 * by its own parser (core of the message: `invalid escape sequence: \e`...).
 */
function toRe2Syntax(pattern: string): string {
  let out = '';
  let inClass = false;
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) {
        out += ch;
        i += 1;
      } else if (!inClass && next >= '1' && next <= '9') {
        refuse('a backreference (\\1)');
      } else if (next === 'k' && pattern[i + 2] === '<') {
        refuse('a named backreference (\\k<name>)');
      } else if (next === 'u') {
        const [code, used] = unicodeEscape(pattern, i);
        out += code === undefined ? '\\u' : `\\x{${code.toString(16)}}`;
        i += used;
      } else if (next === 'c' && /^[A-Za-z]$/.test(pattern[i + 2] ?? '')) {
        out += `\\x{${(pattern.charCodeAt(i + 2) % 32).toString(16)}}`;
        i += 3;
      } else {
        const size = (pattern.codePointAt(i + 1) ?? 0) > 0xffff ? 2 : 1;
        out += pattern.slice(i, i + 1 + size);
        i += 1 + size;
      }
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      out += ch;
      i += 1;
      continue;
    }
    if (ch === '[') {
      // In JavaScript a class never starts with a literal ']': `[]` matches nothing, `[^]` anything.
      if (pattern.startsWith('[]', i)) {
        out += '[^\\x{0}-\\x{10ffff}]';
        i += 2;
      } else if (pattern.startsWith('[^]', i)) {
        out += '[\\x{0}-\\x{10ffff}]';
        i += 3;
      } else {
        inClass = true;
        out += ch;
        i += 1;
      }
      continue;
    }
    if (ch === '(' && pattern[i + 1] === '?') refuseGroup(pattern.slice(i + 2, i + 4));
    if ((ch === '*' || ch === '+' || ch === '?') && pattern[i - 1] !== '(' && pattern[i + 1] === '+') refuse(`a possessive quantifier (${ch}+)`);
    if (ch === '{' && /^\{\d+(,\d*)?\}\+/.test(pattern.slice(i, i + 24))) refuse('a possessive quantifier ({n}+)');
    out += ch;
    i += 1;
  }
  return out;
}

/** Refuses the `(?...` groups RE2 has no linear-time way to run; `rest` is the two characters after `(?`. */
function refuseGroup(rest: string): void {
  if (rest === '<=' || rest === '<!') refuse('lookbehind');
  if (rest.startsWith('=') || rest.startsWith('!')) refuse('lookahead');
  if (rest.startsWith('>')) refuse('an atomic group (?>...)');
  if (rest.startsWith('(')) refuse('a conditional group (?(...)...)');
  if (rest === 'P=') refuse('a named backreference (?P=name)');
  if (/^(R|&|P>|\d|[+-]\d)/.test(rest)) refuse('recursion');
}

/** A `\u` escape at `at`: its code point (undefined when it is not one) and how many characters it took. */
function unicodeEscape(pattern: string, at: number): [number | undefined, number] {
  const braced = /^\\u\{([0-9A-Fa-f]{1,6})\}/.exec(pattern.slice(at, at + 11));
  if (braced) return [Number.parseInt(braced[1], 16), braced[0].length];
  const hex = pattern.slice(at + 2, at + 6);
  if (!HEX.test(hex)) return [undefined, 2];
  const unit = Number.parseInt(hex, 16);
  const low = pattern.slice(at + 8, at + 12);
  if (unit >= 0xd800 && unit <= 0xdbff && pattern.startsWith('\\u', at + 6) && HEX.test(low)) {
    const second = Number.parseInt(low, 16);
    if (second >= 0xdc00 && second <= 0xdfff) return [(unit - 0xd800) * 0x400 + (second - 0xdc00) + 0x10000, 12];
  }
  return [unit, 6];
}
