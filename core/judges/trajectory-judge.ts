import { z } from 'zod';
import type { ScoreInput } from '../scoring/scorer.js';
import { requireTree } from '../scoring/trajectory/support.js';
import { condenseTrajectory } from './condensed-trajectory.js';
import { JUDGE_COMMON_CONFIG, judgeScorer, MAX_PROMPT_CHARS, type JudgeQuestion, type JudgeRuntime, type JudgeScorer } from './judge-scorer.js';
import { caseBlock, promptText, systemPrompt } from './prompt.js';

/**
 * `trajectoryJudge`: an LLM judge of what the agent did, shown the case's input, its trace
 * condensed (condensed-trajectory.ts: every step in order with tools, arguments, results, model
 * calls, tokens, errors; at most `maxChars`), its final answer and, when the case has one, what
 * was expected. It judges the aspects asked for (goal success, efficiency, reasoning quality; all
 * three by default) plus any `criteria`, in one verdict (docs/judges.md "trajectoryJudge").
 */

export const TRAJECTORY_ASPECTS = ['goal', 'efficiency', 'reasoning'] as const;
type Aspect = (typeof TRAJECTORY_ASPECTS)[number];

/** What each aspect asks. docs/judges.md quotes these. */
export const ASPECT_CRITERIA: Record<Aspect, string> = {
  goal: 'Goal success: the agent achieved what the input asked. Its final output answers the request, and the steps it took actually did the work (a booking tool that failed booked nothing, whatever the answer claims).',
  efficiency:
    'Efficiency: it got there without waste. Repeated or redundant tool calls, loops, model calls that added nothing, and tokens or time spent on steps that did not help lower the score.',
  reasoning:
    'Reasoning quality: its decisions were sound. It chose tools that fit the task, with sensible arguments; it used what the tools returned; it reacted to errors (retried, changed course or told the user) instead of ignoring them; its conclusion follows from what it found.',
};

const ALL_BANDS: [string, string, string, string] = [
  'achieves the goal efficiently, with sound decisions throughout.',
  'achieves the goal, with minor waste or one questionable step.',
  'partly achieves the goal, or achieves it with clear waste (loops, redundant calls) or unsound steps.',
  'fails the goal, or claims success that the steps do not support.',
];

/** The trajectory shown is cut to this many characters by default (docs/judges.md). */
export const DEFAULT_TRAJECTORY_CHARS = 24_000;
/** The case's input, final answer and expected, each cut to this many characters. */
const CASE_PART_CHARS = 8_000;

const Config = z.strictObject({
  ...JUDGE_COMMON_CONFIG,
  /** The aspects judged (one verdict over all of them). */
  aspects: z
    .array(z.enum(TRAJECTORY_ASPECTS))
    .min(1)
    .max(3)
    .default([...TRAJECTORY_ASPECTS]),
  /** More criteria, added to the aspects'. */
  criteria: z.string().trim().min(1).max(MAX_PROMPT_CHARS).optional(),
  /** The condensed trajectory's size in characters. */
  maxChars: z.number().int().min(2_000).max(200_000).default(DEFAULT_TRAJECTORY_CHARS),
});
type TrajectoryJudgeConfig = z.output<typeof Config>;

function criteriaOf(config: TrajectoryJudgeConfig): string {
  const aspects = [...new Set(config.aspects)];
  const lines = ['Judge the trajectory: the steps the agent took to answer the input, shown condensed, and its final output.'];
  for (const aspect of aspects) lines.push(`- ${ASPECT_CRITERIA[aspect]}`);
  if (aspects.includes('goal') && aspects.length > 1)
    lines.push('Goal success weighs most: an efficient, well-reasoned trajectory that fails the goal is poor.');
  if (config.criteria) lines.push(`Also: ${config.criteria}`);
  lines.push('Name in your reason the steps ([n]) that decided the score.');
  return lines.join('\n');
}

function question(config: TrajectoryJudgeConfig, input: ScoreInput): JudgeQuestion {
  const tree = requireTree(input, 'trajectoryJudge');
  const parts: Array<[string, string]> = [
    ['input', promptText(input.input, CASE_PART_CHARS)],
    ['trajectory', condenseTrajectory(tree, config.maxChars)],
    ['output', promptText(input.output, CASE_PART_CHARS)],
  ];
  if (Object.keys(input.expected ?? {}).length) parts.push(['expected', promptText(input.expected, CASE_PART_CHARS)]);
  const allAspects = TRAJECTORY_ASPECTS.every((a) => config.aspects.includes(a));
  return { system: systemPrompt(criteriaOf(config), allAspects ? ALL_BANDS : undefined), prompt: caseBlock(parts) };
}

export function trajectoryJudge(runtime: JudgeRuntime): JudgeScorer {
  return judgeScorer(runtime, {
    name: 'trajectoryJudge',
    description:
      "LLM judge of the agent's trajectory: its trace condensed (steps, tools with arguments and results, model calls, tokens, errors) with the input and final answer; goal success, efficiency and reasoning quality (config.aspects), plus config.criteria.",
    configSchema: Config,
    request: question,
  });
}
