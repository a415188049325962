import { z } from 'zod';
import type { ToolCall } from '../../model/eval-case.js';
import {
  ARGS_MATCHES,
  ExpectedCallListSchema,
  ForbiddenToolsSchema,
  TOOL_CALL_MODES,
  trajectoryOf,
  type ArgsMatch,
  type ExpectedCall,
  type ToolCallMode as Mode,
} from '../../model/expected-trajectory.js';
import { cut, listOf, outputText, ruleScorer, show } from '../rules/support.js';
import type { ScoreInput, Scorer } from '../scorer.js';
import { spanTreeOf } from '../trace-view.js';
import { argumentLabel, deeperThan, jsonMismatch, MAX_ARGUMENT_DEPTH, parseArguments, valueAt, type ParsedArguments } from './json-value.js';
import { predicateMismatch } from './predicates.js';
import { RegexBatch, type RegexOracle } from './regex-batch.js';
import { callText, plural, requireTree } from './support.js';

/**
 * `toolCalls`: the tool calls the agent made against the calls expected, arguments included
 * (docs/scorers.md "toolCalls"). Modes, after LangSmith's trajectory match:
 *   strict     the same calls in the same order, no other
 *   unordered  the same calls in any order, no other
 *   subset     every call made was expected (some expected may be missing)
 *   superset   every expected call was made (others may be too)
 * One expected call matches one call made: same tool name, arguments compared by `argsMatch`
 * (exact JSON, JSON subset, or ignored) and every `where` predicate holding on its argument.
 * Score = matched / max(expected, made) (strict: the longest run of matches in order; unordered:
 * the most calls paired one to one), matched / made (subset), matched / expected (superset): 1
 * exactly when the mode holds. The reason names the first mismatch.
 */

const Config = z.strictObject({
  /** The calls expected; else the case's expected.trajectory.calls, else its expected.toolCalls (names, or {name, input}: input is the arguments). */
  calls: ExpectedCallListSchema.optional(),
  /** Default: the case's expected.trajectory.mode, else `strict`. */
  mode: z.enum(TOOL_CALL_MODES).optional(),
  /** How expected `args` compare with the call's: equal JSON, a JSON subset, or not at all. Default: the case's, else `exact`. */
  argsMatch: z.enum(ARGS_MATCHES).optional(),
  /** Tools that must not be called at all (with the case's expected.trajectory.forbidden): any call of one scores 0. */
  forbidden: ForbiddenToolsSchema.default([]),
  /** Whose calls: the trace's tool spans, the tool calls the agent reported, or (auto) the trace's when it has any, else the reported ones. */
  from: z.enum(['auto', 'trace', 'reply']).default('auto'),
});

/** A call the agent made, from a tool span or from its reply. */
interface MadeCall {
  name: string;
  text: string;
  args: ParsedArguments;
}

export const toolCallsScorer: Scorer = ruleScorer({
  name: 'toolCalls',
  description:
    'The tool calls made (tool spans of the trace, else the reported calls) against the expected calls with their arguments (config.calls, else expected.trajectory.calls, else expected.toolCalls): modes strict, unordered, subset, superset; arguments exact, JSON subset, or per-argument predicates (regex, numeric tolerance); forbidden tools (config.forbidden and expected.trajectory.forbidden) score 0.',
  config: Config,
  async evaluate(input, config, signal) {
    const trajectory = trajectoryOf(input.expected);
    const mode: Mode = config.mode ?? trajectory?.mode ?? 'strict';
    const argsMatch: ArgsMatch = config.argsMatch ?? trajectory?.argsMatch ?? 'exact';
    // Prohibitions add up: the scorer's (a suite's default) and the case's.
    const forbiddenTools = new Set([...config.forbidden, ...(trajectory?.forbidden ?? [])]);
    const expected = expectedCalls(config.calls ?? trajectory?.calls, input.expected.toolCalls, forbiddenTools.size > 0);
    const made = madeCalls(input, config.from);
    const evidence = [cut(made.length ? `calls made: ${made.map((c) => c.name).join(' -> ')}` : 'no tool calls made')];

    const forbidden = made.findIndex((c) => forbiddenTools.has(c.name));
    if (forbidden >= 0) {
      const count = made.filter((c) => forbiddenTools.has(c.name)).length;
      evidence.push(`call ${forbidden + 1}: ${callText(made[forbidden].name, made[forbidden].text)}`);
      return {
        score: 0,
        reason: `forbidden tool ${made[forbidden].name} was called (call ${forbidden + 1}; ${plural(count, 'forbidden call')} in all)`,
        evidence,
      };
    }
    if (!expected) {
      return { score: 1, reason: `no forbidden tool was called (forbidden: ${listOf([...forbiddenTools], 5)}; no calls expected)`, evidence };
    }

    // Which expected call matches which call made. Regex predicates search on the regex pool:
    // a first walk records them, the searches run, a second walk decides.
    const batch = new RegexBatch();
    pairMismatches(expected, made, argsMatch, batch.collecting, true);
    await batch.run({ runId: input.runId, signal });
    const pairs = pairMismatches(expected, made, argsMatch, batch.deciding, false);
    const why = (e: number, m: number): string | null => (pairs[e].has(m) ? pairs[e].get(m)! : ANOTHER_TOOL);
    const matches = (e: number, m: number) => pairs[e].get(m) === null;

    const verdict = judge(mode, expected, made, matches, why);
    for (const m of verdict.calls) evidence.push(`call ${m + 1}: ${callText(made[m].name, made[m].text)}`);
    return { score: verdict.score, reason: `${mode}: ${verdict.reason}`, evidence };
  },
});

/**
 * The expected calls: the config's, else the case's expected.trajectory.calls, else its
 * expected.toolCalls. None anywhere: undefined when forbidden tools are all there is to check,
 * else throws.
 */
function expectedCalls(
  given: ExpectedCall[] | undefined,
  fromCase: ReadonlyArray<string | { name: string; input?: unknown }> | undefined,
  forbiddenOnly: boolean,
): ExpectedCall[] | undefined {
  const calls =
    given ?? fromCase?.map((c): ExpectedCall => (typeof c === 'string' ? { name: c } : { name: c.name, ...(c.input !== undefined ? { args: c.input } : {}) }));
  if (!calls) {
    if (forbiddenOnly) return undefined;
    throw new Error('toolCalls needs config.calls, expected.trajectory.calls or expected.toolCalls');
  }
  return calls.map((c) => (typeof c.args === 'string' && /^\s*[[{]/.test(c.args) ? { ...c, args: jsonOr(c.args) } : c));
}

function jsonOr(text: string): unknown {
  const parsed = parseArguments(text);
  return parsed.kind === 'json' ? parsed.value : text;
}

/** The calls the agent made, in order: the trace's tool spans, or the tool calls its reply reported. */
function madeCalls(input: ScoreInput, from: 'auto' | 'trace' | 'reply'): MadeCall[] {
  if (from === 'trace') {
    const calls = requireTree(input, 'toolCalls with from: trace').toolCalls();
    return calls.map((c) => ({ name: c.name, text: c.argumentsText, args: c.arguments }));
  }
  const tree = from === 'reply' ? undefined : spanTreeOf(input);
  const spans = tree?.toolCalls() ?? [];
  if (spans.length > 0) return spans.map((c) => ({ name: c.name, text: c.argumentsText, args: c.arguments }));
  return input.toolCalls.map(reportedCall);
}

function reportedCall(call: ToolCall): MadeCall {
  const raw = call.input;
  if (typeof raw === 'string' || raw === undefined) {
    const text = raw ?? '';
    return { name: call.name, text, args: parseArguments(text) };
  }
  const text = outputText(raw);
  const tooDeep = deeperThan(raw, MAX_ARGUMENT_DEPTH);
  return { name: call.name, text, args: tooDeep ? { kind: 'text', why: `nested deeper than ${MAX_ARGUMENT_DEPTH} levels` } : { kind: 'json', value: raw } };
}

/** Why an expected call and a call of another tool do not match (the reasons name both tools themselves). */
const ANOTHER_TOOL = 'another tool';

/**
 * For every expected call, why each call made of the same tool does not match it (null: it
 * does), by the call's index; calls of other tools are not in the map (they differ by name).
 * Sparse, so 1,000 expected calls against 10,000 made hold only the pairs of the same tool.
 * `collecting`: the regex walk (results unused).
 */
function pairMismatches(
  expected: ExpectedCall[],
  made: MadeCall[],
  argsMatch: ArgsMatch,
  oracle: RegexOracle,
  collecting: boolean,
): Array<Map<number, string | null>> {
  const byName = new Map<string, number[]>();
  made.forEach((m, i) => {
    const list = byName.get(m.name);
    if (list) list.push(i);
    else byName.set(m.name, [i]);
  });
  return expected.map((e) => {
    const pairs = new Map<number, string | null>();
    for (const i of byName.get(e.name) ?? []) {
      pairs.set(i, collecting && !e.where ? null : argumentsMismatch(e, made[i], e.argsMatch ?? argsMatch, oracle));
    }
    return pairs;
  });
}

function argumentsMismatch(e: ExpectedCall, m: MadeCall, argsMatch: ArgsMatch, oracle: RegexOracle): string | null {
  if (e.args !== undefined && argsMatch !== 'ignore') {
    if (m.args.kind === 'text') {
      if (!(typeof e.args === 'string' && e.args === m.text)) return `the arguments are ${m.args.why} (${show(m.text)}), expected ${show(e.args)}`;
    } else {
      const why = jsonMismatch(e.args, m.args.value, argsMatch);
      if (why) return why;
    }
  }
  for (const [path, predicate] of Object.entries(e.where ?? {})) {
    if (m.args.kind === 'text') return `${argumentLabel(path)}: the arguments are ${m.args.why} (${show(m.text)})`;
    const why = predicateMismatch(predicate, valueAt(m.args.value, path), oracle);
    if (why !== null) return `${argumentLabel(path)}: ${why}`;
  }
  return null;
}

interface Verdict {
  score: number;
  reason: string;
  /** Calls made worth quoting as evidence (the mismatching ones). */
  calls: number[];
}

function judge(
  mode: Mode,
  expected: ExpectedCall[],
  made: MadeCall[],
  matches: (e: number, m: number) => boolean,
  why: (e: number, m: number) => string | null,
): Verdict {
  const E = expected.length;
  const M = made.length;
  const calls = (n: number) => plural(n, 'call');
  const were = (n: number) => (n === 1 ? 'was' : 'were');
  if (mode === 'strict') {
    const lined = lcsLength(E, M, matches);
    const score = Math.max(E, M) === 0 ? 1 : lined / Math.max(E, M);
    if (score === 1) {
      return {
        score,
        reason: E === 0 ? 'no call was expected, and none was made' : `the ${calls(E)} expected ${were(E)} made in order, and no other`,
        calls: [],
      };
    }
    const i = firstStrictMismatch(E, M, matches);
    let first: string;
    if (i >= M) first = `${calls(E)} expected, ${M} made: expected call ${i + 1} (${expected[i].name}) is missing`;
    else if (i >= E) first = `${calls(M)} made, ${E} expected: call ${i + 1} (${made[i].name}) was not expected`;
    else first = `call ${i + 1} ${callDiff(expected[i], made[i], why(i, i)!)}`;
    return { score, reason: `${first}; ${lined} of ${Math.max(E, M)} line up in order`, calls: i < M ? [i] : [] };
  }

  const { pairOfExpected, pairOfMade, size } = maxMatching(E, M, matches);
  const missing = [...pairOfExpected.keys()].filter((e) => pairOfExpected[e] < 0);
  const extra = [...pairOfMade.keys()].filter((m) => pairOfMade[m] < 0);
  const checkMissing = mode !== 'subset';
  const checkExtra = mode !== 'superset';
  const denominator = mode === 'subset' ? M : mode === 'superset' ? E : Math.max(E, M);
  const score = denominator === 0 ? 1 : size / denominator;
  if (score === 1) {
    const reason =
      mode === 'unordered'
        ? `the ${calls(E)} expected ${were(E)} made (in any order), and no other`
        : mode === 'subset'
          ? `every one of the ${calls(M)} made was expected (${E} expected)`
          : `the ${calls(E)} expected ${were(E)} made${M > E ? ` (and ${calls(M - E)} more, allowed)` : ''}`;
    return { score, reason, calls: [] };
  }
  const parts: string[] = [`${size} of ${calls(E)} expected matched`];
  if (checkMissing && missing.length)
    parts.push(
      `${missing.length} missing (${listOf(
        missing.map((e) => expected[e].name),
        5,
      )})`,
    );
  if (checkExtra && extra.length)
    parts.push(
      `${extra.length} not expected (${listOf(
        extra.map((m) => made[m].name),
        5,
      )})`,
    );
  let first: string;
  let quoted: number[] = [];
  if (checkMissing && missing.length) {
    const e = missing[0];
    // The closest call made: one of the same tool, preferring one left unpaired.
    const same = [...extra, ...pairOfMade.keys()].find((m) => made[m].name === expected[e].name);
    first =
      same === undefined
        ? `expected call ${e + 1} (${expected[e].name}) was not made: no ${expected[e].name} call${M ? ` among ${calls(M)} made` : ' was made'}`
        : `expected call ${e + 1} (${expected[e].name}) was not made; the closest, call ${same + 1}, differs: ${why(e, same)!}`;
    if (same !== undefined) quoted = [same];
  } else {
    const m = extra[0];
    first = `call ${m + 1} (${made[m].name}) was not expected`;
    quoted = [m];
  }
  return { score, reason: `${first}; ${parts.join(', ')}`, calls: quoted };
}

/** How call made at one position differs from the one expected there. */
function callDiff(e: ExpectedCall, m: MadeCall, why: string): string {
  if (e.name !== m.name) return `is ${m.name}, expected ${e.name}`;
  return `(${e.name}) differs: ${why}`;
}

/** The first position where the calls made stop lining up with the expected ones. */
function firstStrictMismatch(E: number, M: number, matches: (e: number, m: number) => boolean): number {
  let i = 0;
  while (i < E && i < M && matches(i, i)) i += 1;
  return i;
}

/** The longest common subsequence under `matches`: O(E·M) time, O(M) memory. */
export function lcsLength(E: number, M: number, matches: (e: number, m: number) => boolean): number {
  let prev = new Int32Array(M + 1);
  let row = new Int32Array(M + 1);
  for (let e = 0; e < E; e++) {
    row[0] = 0;
    for (let m = 1; m <= M; m++) row[m] = matches(e, m - 1) ? prev[m - 1] + 1 : Math.max(prev[m], row[m - 1]);
    [prev, row] = [row, prev];
  }
  return prev[M];
}

/**
 * A maximum one-to-one pairing of expected calls with calls made under `matches` (Kuhn's
 * augmenting paths, iterative): `pairOfExpected[e]` is the call made paired with e (-1: none),
 * `pairOfMade[m]` the expected call paired with m. Expected calls are tried in order and each
 * tries the calls made in order, so the pairing is deterministic.
 */
export function maxMatching(
  E: number,
  M: number,
  matches: (e: number, m: number) => boolean,
): { pairOfExpected: Int32Array; pairOfMade: Int32Array; size: number } {
  const adjacent: number[][] = [];
  for (let e = 0; e < E; e++) {
    const list: number[] = [];
    for (let m = 0; m < M; m++) if (matches(e, m)) list.push(m);
    adjacent.push(list);
  }
  const pairOfExpected = new Int32Array(E).fill(-1);
  const pairOfMade = new Int32Array(M).fill(-1);
  let size = 0;
  // Greedy first: most pairs are found without searching.
  for (let e = 0; e < E; e++) {
    const free = adjacent[e].find((m) => pairOfMade[m] < 0);
    if (free !== undefined) {
      pairOfExpected[e] = free;
      pairOfMade[free] = e;
      size += 1;
    }
  }
  const seen = new Int32Array(M);
  let stamp = 0;
  for (let root = 0; root < E; root++) {
    if (pairOfExpected[root] >= 0 || adjacent[root].length === 0) continue;
    stamp += 1;
    // Depth-first search for an augmenting path, with an explicit stack of (expected, next edge).
    const stack: Array<{ e: number; next: number; via: number }> = [{ e: root, next: 0, via: -1 }];
    let found = false;
    while (stack.length > 0 && !found) {
      const top = stack[stack.length - 1];
      if (top.next >= adjacent[top.e].length) {
        stack.pop();
        continue;
      }
      const m = adjacent[top.e][top.next++];
      if (seen[m] === stamp) continue;
      seen[m] = stamp;
      top.via = m;
      if (pairOfMade[m] < 0) found = true;
      else stack.push({ e: pairOfMade[m], next: 0, via: -1 });
    }
    if (!found) continue;
    // Flip the path: each expected call on the stack takes the call made it went through.
    for (const { e, via } of stack) {
      pairOfExpected[e] = via;
      pairOfMade[via] = e;
    }
    size += 1;
  }
  return { pairOfExpected, pairOfMade, size };
}
