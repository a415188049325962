import { turnText } from '../conversations/view.js';
import type { ConversationEnd } from '../model/conversation.js';
import type { ToolCall } from '../model/eval-case.js';
import type { CaseResultView, TurnResult } from '../model/eval-run.js';

/**
 * Two conversations of one case compared turn by turn (docs/evals.md, "Comparing conversation
 * runs"): turns aligned by index, each turn's scores with their deltas, the user's message and the
 * agent's answer of both, and the first turn where the two conversations part ways. Pure and
 * browser-safe: the API computes it, the dashboard only shows it.
 */

/** One conversation trial as a comparison reads it (the case's first trial that ran). */
export interface ComparableConversation {
  trial: number;
  turns: TurnResult[];
  /** Why it ended; null when it did not (the trial failed on the way). */
  ended: ConversationEnd | null;
  /** The trial's trace (one agent call span per turn). */
  trace_id: string | null;
}

/** A score of both sides; a side without it is null, and so is the delta then. */
export interface ScoreDelta {
  scorer: string;
  baseline_score: number | null;
  candidate_score: number | null;
  delta: number | null;
}

/** What one side said and scored at a turn. */
export interface TurnSide {
  user: string;
  output: unknown;
  tool_calls: ToolCall[] | null;
  avg_score: number | null;
  passed: boolean;
  error: string | null;
  latency_ms: number | null;
}

/**
 * Why a turn diverges (`divergence` below):
 * - `missing_turn`: one conversation has no such turn (it ended sooner);
 * - `user_message`: the users' messages differ materially (a simulated user that took another path);
 * - `pass_fail`: the turn passes in one run and fails in the other (an agent error fails it);
 * - `tool_calls`: the agent called other tools (names, in order);
 * - `numbers`: the answers state other numbers;
 * - `answer_text`: the answers' words overlap less than MATERIAL_SIMILARITY.
 */
export const DIVERGENCE_REASONS = ['missing_turn', 'user_message', 'pass_fail', 'tool_calls', 'numbers', 'answer_text'] as const;
export type DivergenceReason = (typeof DIVERGENCE_REASONS)[number];

export interface TurnComparison {
  /** 1-based. */
  turn: number;
  /** Null when the baseline's conversation has no such turn. */
  baseline: TurnSide | null;
  candidate: TurnSide | null;
  /** Every turn scorer of either side, by name. */
  scores: ScoreDelta[];
  /** Candidate minus baseline turn average; null unless both sides have one. */
  delta: number | null;
  /** Word overlap of the two answers, 0..1 (Dice coefficient of their words); null when a side lacks the turn. */
  answer_similarity: number | null;
  /** Why this turn diverges; empty when the two turns agree. */
  divergence: DivergenceReason[];
}

/** A conversation case of both runs compared (CaseComparison.conversation). */
export interface ConversationComparison {
  baseline: ConversationSide;
  candidate: ConversationSide;
  /** The first turn whose `divergence` is not empty, and why; null when every turn agrees. */
  first_divergence: { turn: number; reasons: DivergenceReason[] } | null;
  /** The case-level scores (the conversation-level scorers' and the last answer's) of both runs. */
  conversation_scores: ScoreDelta[];
  /** Every turn index present in either conversation, in order. */
  turns: TurnComparison[];
}

export interface ConversationSide {
  trial: number;
  /** Turns recorded (answered or failed). */
  turn_count: number;
  ended: ConversationEnd | null;
  trace_id: string | null;
}

/**
 * What a comparison reads of a case result: a conversation case's first trial that ran (the one
 * the case's output shows, unless cancelled), as `{conversation}`; `{}` for a single-turn case.
 */
export function comparableConversation(result: Pick<CaseResultView, 'trials'>): { conversation?: ComparableConversation } {
  const trial = result.trials.find((t) => t.turns !== undefined && t.status !== 'cancelled');
  if (!trial?.turns) return {};
  return { conversation: { trial: trial.trial, turns: trial.turns, ended: trial.conversation?.ended ?? null, trace_id: trial.trace_id } };
}

/** Answers whose words overlap less than this (Dice coefficient) say something else. */
export const MATERIAL_SIMILARITY = 0.5;

/** Compares two conversations of one case; `scores` are the case-level scores of each run. */
export function compareConversations(
  baseline: ComparableConversation,
  candidate: ComparableConversation,
  scores: { baseline: Record<string, number>; candidate: Record<string, number> },
): ConversationComparison {
  const last = Math.max(0, ...baseline.turns.map((t) => t.turn), ...candidate.turns.map((t) => t.turn));
  const byTurn = (c: ComparableConversation) => new Map(c.turns.map((t) => [t.turn, t]));
  const base = byTurn(baseline);
  const cand = byTurn(candidate);
  const turns: TurnComparison[] = [];
  for (let turn = 1; turn <= last; turn++) {
    const b = base.get(turn);
    const c = cand.get(turn);
    if (b || c) turns.push(compareTurn(turn, b, c));
  }
  const first = turns.find((t) => t.divergence.length > 0);
  return {
    baseline: side(baseline),
    candidate: side(candidate),
    first_divergence: first ? { turn: first.turn, reasons: first.divergence } : null,
    conversation_scores: scoreDeltas(scores.baseline, scores.candidate),
    turns,
  };
}

function side(c: ComparableConversation): ConversationSide {
  return { trial: c.trial, turn_count: c.turns.length, ended: c.ended, trace_id: c.trace_id };
}

function compareTurn(turn: number, b: TurnResult | undefined, c: TurnResult | undefined): TurnComparison {
  const scores = scoreDeltas(scoresOf(b), scoresOf(c));
  const delta = b?.avg_score != null && c?.avg_score != null ? c.avg_score - b.avg_score : null;
  if (!b || !c)
    return { turn, baseline: b ? turnSide(b) : null, candidate: c ? turnSide(c) : null, scores, delta, answer_similarity: null, divergence: ['missing_turn'] };
  const divergence: DivergenceReason[] = [];
  if (wordSimilarity(b.user, c.user) < MATERIAL_SIMILARITY || !sameNumbers(b.user, c.user)) divergence.push('user_message');
  if (passes(b) !== passes(c)) divergence.push('pass_fail');
  if (toolNames(b) !== toolNames(c)) divergence.push('tool_calls');
  const bText = answerText(b);
  const cText = answerText(c);
  if (!sameNumbers(bText, cText)) divergence.push('numbers');
  const similarity = wordSimilarity(bText, cText);
  if (similarity < MATERIAL_SIMILARITY) divergence.push('answer_text');
  return { turn, baseline: turnSide(b), candidate: turnSide(c), scores, delta, answer_similarity: round(similarity), divergence };
}

const passes = (t: TurnResult) => t.passed && t.error === null;
const scoresOf = (t: TurnResult | undefined): Record<string, number> =>
  Object.fromEntries(Object.entries(t?.details ?? {}).map(([name, d]) => [name, d.score]));
const toolNames = (t: TurnResult) => JSON.stringify((t.tool_calls ?? []).map((call) => call.name));
const round = (n: number) => Math.round(n * 1e4) / 1e4;

/** The agent's answer as text: a string as is, anything else as its JSON text (null output: ''). */
export const answerText = (t: Pick<TurnResult, 'output'>): string => (t.output === null || t.output === undefined ? '' : turnText(t.output));

function turnSide(t: TurnResult): TurnSide {
  return { user: t.user, output: t.output, tool_calls: t.tool_calls, avg_score: t.avg_score, passed: t.passed, error: t.error, latency_ms: t.latency_ms };
}

/** Both sides' scores by scorer name, in name order. */
export function scoreDeltas(baseline: Record<string, number>, candidate: Record<string, number>): ScoreDelta[] {
  const names = [...new Set([...Object.keys(baseline), ...Object.keys(candidate)])].sort();
  return names.map((scorer) => {
    const b = Object.hasOwn(baseline, scorer) ? baseline[scorer] : null;
    const c = Object.hasOwn(candidate, scorer) ? candidate[scorer] : null;
    return { scorer, baseline_score: b, candidate_score: c, delta: b !== null && c !== null ? c - b : null };
  });
}

/**
 * A text's words: letters, marks and digits in runs, lower-cased after NFKC; each Han, kana or
 * Thai character a word of its own (those scripts do not separate words with spaces).
 * Punctuation, markdown markup, emoji and whitespace are not words.
 */
export function words(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
}

/** One character of a script written without spaces, or a run of other letters, marks and digits. */
const WORD =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}])[\p{L}\p{M}\p{N}])+/gu;

/** Dice coefficient of two texts' words as multisets: 1 when they use the same words, 0 when none in common; two empty texts are the same. */
export function wordSimilarity(a: string, b: string): number {
  const wa = words(a);
  const wb = words(b);
  if (wa.length === 0 && wb.length === 0) return 1;
  const counts = new Map<string, number>();
  for (const w of wa) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of wb) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      common++;
      counts.set(w, n - 1);
    }
  }
  return (2 * common) / (wa.length + wb.length);
}

/**
 * The numbers a text states, as a set: digit runs with a decimal part (`4,417` is 4417), leaving
 * out a line's list marker (`1.`, `2)`), which numbers a list rather than stating a fact.
 */
export function numbersIn(text: string): Set<string> {
  const unlisted = text.normalize('NFKC').replace(/^[ \t]*\d{1,3}[.)][ \t]+/gm, '');
  const found = unlisted.replace(/(\d),(?=\d{3}\b)/g, '$1').match(/\d+(?:\.\d+)?/g) ?? [];
  return new Set(found.map((n) => n.replace(/^0+(?=\d)/, '')));
}

function sameNumbers(a: string, b: string): boolean {
  const na = numbersIn(a);
  const nb = numbersIn(b);
  return na.size === nb.size && [...na].every((n) => nb.has(n));
}
