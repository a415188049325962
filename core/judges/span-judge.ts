import { z } from 'zod';
import type { ScoreDetail } from '../model/eval-case.js';
import { cut } from '../scoring/rules/support.js';
import type { ScoreInput } from '../scoring/scorer.js';
import { compileSelector, selectSpans, SelectorSchema } from '../scoring/trajectory/selector.js';
import type { SpanNode, SpanTree } from '../scoring/trajectory/span-tree.js';
import { plural, requireTree, round2, spanLabel } from '../scoring/trajectory/support.js';
import { stepText } from './condensed-trajectory.js';
import { JUDGE_COMMON_CONFIG, judgeScorer, MAX_PROMPT_CHARS, type AskJudge, type JudgeRuntime, type JudgeScorer } from './judge-scorer.js';
import { caseBlock, promptText, renderTemplate, systemPrompt } from './prompt.js';

/**
 * `spanJudge`: one judge prompt applied to every span a selector picks (the spanMatch selector:
 * core/scoring/trajectory/selector.ts), e.g. each retrieval's relevance to the question. Each
 * span is one judging (one verdict, through the same runJudge, budget gate and call records as
 * every judge); the spans' scores are aggregated by `aggregate` (mean or min) and the reason names
 * the worst span. At most `maxSpans` spans are judged, the first in start order; the reason says
 * how many were left out (docs/judges.md "spanJudge").
 */

/** Spans judged by default, and at most. */
export const DEFAULT_MAX_SPANS = 10;
export const MAX_SPANS_JUDGED = 50;
/** Characters of the span's input and of its output the judge is shown. */
export const SPAN_TEXT_CHARS = 8_000;
/** Characters of the case's input and output the judge is shown. */
const CASE_PART_CHARS = 4_000;

export const SPAN_JUDGE_PROMPT_REQUIRED = 'spanJudge requires criteria or a prompt';

const Config = z
  .strictObject({
    ...JUDGE_COMMON_CONFIG,
    /** Which spans are judged. */
    select: SelectorSchema,
    criteria: z.string().max(MAX_PROMPT_CHARS).optional(),
    /** The judge's message; `{{span}}`, `{{input}}`, `{{output}}`, `{{expected}}` filled in. */
    prompt: z.string().max(MAX_PROMPT_CHARS).optional(),
    aggregate: z.enum(['mean', 'min']).default('mean'),
    maxSpans: z.number().int().min(1).max(MAX_SPANS_JUDGED).default(DEFAULT_MAX_SPANS),
    /** What the score is when the selector picks no span. */
    whenNone: z.enum(['pass', 'fail']).default('fail'),
  })
  .superRefine((c, ctx) => {
    if (!c.criteria?.trim() && !c.prompt?.trim()) ctx.addIssue({ code: 'custom', path: ['criteria'], message: SPAN_JUDGE_PROMPT_REQUIRED });
  });
type SpanJudgeConfig = z.output<typeof Config>;

const SPAN_VARIABLE = /\{\{\s*span\s*\}\}/g;
const ANY_VARIABLE = /\{\{\s*(span|input|output|expected)\s*\}\}/;

/** The span as the judge reads it: its step line (kind, name, model, selection, error), attributes, then input and output whole (cut at SPAN_TEXT_CHARS). */
function spanBlock(tree: SpanTree, node: SpanNode): string {
  const lines = [stepText(tree, node, 0).split('\n')[0]];
  const attributes = Object.entries(node.attributes)
    .slice(0, 20)
    .map(([k, v]) => `${cut(k, 80)}: ${cut(v.replace(/\s+/g, ' '), 200)}`);
  if (attributes.length) lines.push(`attributes:\n${attributes.join('\n')}`);
  lines.push(`input:\n${promptText(node.input, SPAN_TEXT_CHARS)}`, `output:\n${promptText(node.output, SPAN_TEXT_CHARS)}`);
  return lines.join('\n');
}

function message(config: SpanJudgeConfig, input: ScoreInput, span: string): string {
  const values = {
    input: promptText(input.input, CASE_PART_CHARS),
    output: promptText(input.output, CASE_PART_CHARS),
    expected: Object.keys(input.expected ?? {}).length ? promptText(input.expected, CASE_PART_CHARS) : '',
    // Not a spanJudge variable: left as it is.
    trace: '{{trace}}',
  };
  const block = caseBlock([
    ['input', values.input],
    ['span', span],
  ]);
  const prompt = config.prompt?.trim();
  if (!prompt) return block;
  if (!ANY_VARIABLE.test(prompt)) return `${prompt}\n\n${block}`;
  return renderTemplate(
    prompt.replace(SPAN_VARIABLE, () => span),
    values,
  );
}

function systemOf(config: SpanJudgeConfig): string {
  const criteria = config.criteria?.trim();
  const intro = 'You are shown one span (one step) of the agent trace, with the input the agent received. Judge that span alone.';
  return systemPrompt(criteria ? `${intro}\n${criteria}` : `${intro} Judge it as the instructions in the message ask.`);
}

async function judging(config: SpanJudgeConfig, input: ScoreInput, ask: AskJudge, signal?: AbortSignal): Promise<ScoreDetail> {
  const tree = requireTree(input, 'spanJudge');
  const selector = compileSelector(config.select);
  const picked = await selectSpans(tree, selector, { runId: input.runId, signal });
  if (picked.length === 0) {
    const pass = config.whenNone === 'pass';
    return { score: pass ? 1 : 0, reason: `no span matches ${selector.text}: nothing to judge (whenNone: ${config.whenNone})`, evidence: [] };
  }
  const judged = picked.slice(0, config.maxSpans);
  const system = systemOf(config);
  const verdicts: Array<{ node: SpanNode; verdict: ScoreDetail }> = [];
  for (const node of judged) {
    const { verdict, stopped } = await ask({ system, prompt: message(config, input, spanBlock(tree, node)) });
    if (stopped) {
      const done = verdicts.length ? `; ${plural(verdicts.length, 'span')} of ${judged.length} had been judged` : '';
      return { score: 0, reason: `${stopped}${done}`, evidence: [] };
    }
    verdicts.push({ node, verdict });
  }

  const scores = verdicts.map((v) => v.verdict.score);
  const score = config.aggregate === 'min' ? Math.min(...scores) : scores.reduce((a, b) => a + b, 0) / scores.length;
  const worst = verdicts.reduce((a, b) => (b.verdict.score < a.verdict.score ? b : a));
  const left = picked.length - judged.length;
  const counted = `${plural(judged.length, 'span')} matching ${selector.text} judged${left ? ` (the first ${judged.length} of ${picked.length}: maxSpans ${config.maxSpans})` : ''}`;
  const label = (v: { node: SpanNode }) => spanLabel(tree, v.node);
  return {
    score,
    reason: `${config.aggregate} ${round2(score)} over ${counted}; the worst, ${label(worst)}, scored ${round2(worst.verdict.score)}: ${cut(worst.verdict.reason, 400)}`,
    evidence: verdicts.slice(0, 20).map((v) => cut(`${label(v)}: ${round2(v.verdict.score)}, ${v.verdict.reason}`)),
  };
}

export function spanJudge(runtime: JudgeRuntime): JudgeScorer {
  return judgeScorer(runtime, {
    name: 'spanJudge',
    description:
      'LLM judge applied to every span a selector picks (config.select, as spanMatch), e.g. each retrieval for relevance, with config.criteria or config.prompt ({{span}}); aggregated by mean or min (config.aggregate) over at most config.maxSpans spans; the reason names the worst span.',
    configSchema: Config,
    judging,
  });
}
