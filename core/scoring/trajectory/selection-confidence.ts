import { z } from 'zod';
import { trajectoryOf } from '../../model/expected-trajectory.js';
import { cut, listOf, ruleScorer } from '../rules/support.js';
import type { Scorer } from '../scorer.js';
import { compileSelector, describeSelector, selectSpans, SelectorSchema } from './selector.js';
import type { SpanNode, SpanTree } from './span-tree.js';
import { plural, requireTree, round2, spanLabel } from './support.js';

/**
 * `selectionConfidence`: the choices the agent recorded with the SPEC's skill or tool selection
 * attributes (`selection_confidence`, `skill_category`, `selection_reason`,
 * `alternatives_considered`; SpanNode.selection), checked against what happened
 * (docs/scorers.md "selectionConfidence"). A selection's choice is the tool's name on a tool
 * span, else the span's output (a routing span answers with the route it took). It is wrong when
 * its span failed (status error or `tool_status: error`), when it chose a forbidden tool (the
 * case's expected.trajectory.forbidden), or when the right choices are known (config.expected,
 * else, for tool spans, the names of expected.trajectory.calls or expected.toolCalls) and it is
 * not one.
 * Flagged: a wrong selection at `confident` or above (confident but wrong), and any selection
 * below `low` (low confidence). More confident-but-wrong selections than `maxConfidentWrong`
 * (default 0) score 0; otherwise 1 - flagged / selections with a confidence.
 */

const Share = z.number().min(0).max(1);

const Config = z
  .strictObject({
    /** Which spans count (selector.ts); every span with selection attributes by default. */
    select: SelectorSchema.optional(),
    /** The right choices (tool names, routes...); else expected.toolCalls' names, for tool spans. */
    expected: z.array(z.string().min(1).max(256)).min(1).max(1000).optional(),
    confident: Share.default(0.8),
    low: Share.default(0.5),
    maxConfidentWrong: z.number().int().min(0).max(1_000_000).default(0),
  })
  .refine((c) => c.low <= c.confident, { message: 'low must not be above confident', path: ['low'] });

/** Choices longer than this (a span's output that is a paragraph) are not compared with the expected ones. */
const MAX_CHOICE_CHARS = 256;

interface Judged {
  node: SpanNode;
  choice: string | null;
  confidence: number;
  /** Why the selection was wrong, or null when it was not. */
  wrong: string | null;
  flag: 'confident but wrong' | 'low confidence' | null;
}

export const selectionConfidenceScorer: Scorer = ruleScorer({
  name: 'selectionConfidence',
  description:
    "Selections recorded with the SPEC's selection attributes (selection_confidence...): flags confident-but-wrong ones (confidence >= config.confident on a choice that failed or is not expected) and low-confidence ones (< config.low); 0 past config.maxConfidentWrong, else 1 - flagged / selections.",
  config: Config,
  async evaluate(input, config, signal) {
    const tree = requireTree(input, 'selectionConfidence');
    const picked = config.select ? await selectSpans(tree, compileSelector(config.select), { runId: input.runId, signal }) : tree.spans;
    const recording = picked.filter((n) => n.selection !== null);
    const scope = config.select ? ` among the spans matching ${describeSelector(config.select)}` : '';
    const withConfidence = recording.filter((n) => n.selection!.confidence !== null);
    const unreadable = recording.filter((n) => n.selection!.confidence === null);
    const unreadableEvidence = unreadable.slice(0, 10).map((n) => cut(`${spanLabel(tree, n)}: ${unreadableWhy(n)}; not scored`));
    if (withConfidence.length === 0) {
      return {
        score: 1,
        reason: `no span records a selection_confidence${scope}${recording.length ? ` that is a number from 0 to 1 (${plural(recording.length, 'span')} record other selection attributes)` : ''}: nothing to score`,
        evidence: unreadableEvidence,
      };
    }

    const trajectory = trajectoryOf(input.expected);
    const toolNames = trajectory?.calls?.map((c) => c.name) ?? input.expected.toolCalls?.map((c) => (typeof c === 'string' ? c : c.name));
    const forbidden = trajectory?.forbidden ?? [];
    const judged = withConfidence.map((node) => judge(node, config, config.expected ?? (node.isTool ? toolNames : undefined), forbidden));
    const confidentWrong = judged.filter((j) => j.flag === 'confident but wrong');
    const low = judged.filter((j) => j.flag === 'low confidence');
    const over = confidentWrong.length > config.maxConfidentWrong;
    const score = over ? 0 : 1 - (confidentWrong.length + low.length) / judged.length;
    const evidence = [
      ...judged.slice(0, 20).map((j) => cut(`${describe(tree, j)}: ${j.flag ?? (j.wrong ? `wrong (${j.wrong})` : 'ok')}`)),
      ...unreadableEvidence,
    ];
    const thresholds = `confident >= ${config.confident}, low < ${config.low}`;

    if (confidentWrong.length === 0 && low.length === 0) {
      const mean = judged.reduce((sum, j) => sum + j.confidence, 0) / judged.length;
      return {
        score,
        reason: `${plural(judged.length, 'selection')}${scope}, none confident but wrong or low (${thresholds}); mean confidence ${round2(mean)}`,
        evidence,
      };
    }
    const worst = confidentWrong[0] ?? low.reduce((a, b) => (b.confidence < a.confidence ? b : a));
    const counts = `${confidentWrong.length} confident but wrong (at most ${config.maxConfidentWrong} allowed), ${low.length} low confidence`;
    const why = worst.flag === 'confident but wrong' ? `, but ${worst.wrong}${consideredNote(worst)}` : `: low confidence`;
    return {
      score,
      reason: `${confidentWrong.length + low.length} of ${plural(judged.length, 'selection')}${scope} flagged (${thresholds}): ${counts}; ${describe(tree, worst)}${why}`,
      evidence,
    };
  },
});

/** What the selection chose: the tool's name on a tool span, else the span's output (trimmed; null when empty or too long to be a name). */
function choiceOf(node: SpanNode): string | null {
  if (node.isTool) return node.toolName;
  const text = node.output.trim();
  return text !== '' && text.length <= MAX_CHOICE_CHARS ? text : null;
}

function judge(node: SpanNode, config: z.output<typeof Config>, expected: readonly string[] | undefined, forbidden: readonly string[]): Judged {
  const confidence = node.selection!.confidence!;
  const choice = choiceOf(node);
  let wrong: string | null = null;
  if (node.isError) {
    const message = node.statusMessage.replace(/\s+/g, ' ').trim();
    wrong = `it failed${message ? ` (${JSON.stringify(cut(message, 80))})` : ''}`;
  } else if (node.isTool && choice !== null && forbidden.includes(choice)) {
    wrong = `${JSON.stringify(cut(choice, 60))} is a forbidden tool (expected.trajectory.forbidden)`;
  } else if (expected && expected.length && (choice === null || !expected.includes(choice))) {
    wrong = `${choice === null ? 'its choice is unknown' : `${JSON.stringify(cut(choice, 60))} is not`} an expected choice (expected: ${listOf(expected)})`;
  }
  const flag = wrong && confidence >= config.confident ? 'confident but wrong' : confidence < config.low ? 'low confidence' : null;
  return { node, choice, confidence, wrong, flag };
}

/** `route (span 5, +1250 ms) [travel] chose "itinerary_writer" at confidence 0.92`. */
function describe(tree: SpanTree, j: Judged): string {
  const category = j.node.selection!.category;
  const chose = j.choice === null ? '' : ` chose ${JSON.stringify(cut(j.choice, 60))}`;
  return `${spanLabel(tree, j.node)}${category ? ` [${cut(category, 40)}]` : ''}${chose} at confidence ${round2(j.confidence)}`;
}

/** `; alternatives considered: refunds_agent, booking_agent`, when the span recorded any. */
function consideredNote(j: Judged): string {
  const alternatives = j.node.selection!.alternatives;
  return alternatives.length ? `; alternatives considered: ${cut(listOf(alternatives, 5), 120)}` : '';
}

function unreadableWhy(node: SpanNode): string {
  const text = node.selection!.confidenceText;
  return text === ''
    ? 'selection attributes without selection_confidence'
    : `selection_confidence ${JSON.stringify(cut(text, 40))} is not a number from 0 to 1`;
}
