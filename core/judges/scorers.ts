import { z } from 'zod';
import type { ScoreInput } from '../scoring/scorer.js';
import { traceView } from '../scoring/trace-view.js';
import { JUDGE_COMMON_CONFIG, judgeScorer, MAX_PROMPT_CHARS, type JudgeQuestion, type JudgeRuntime, type JudgeScorer } from './judge-scorer.js';
import { caseBlock, promptText, renderTemplate, systemPrompt, usesVariables, type PromptVariable } from './prompt.js';
import { RUBRICS, type Rubric } from './rubrics.js';
import { conversationJudges } from '../scoring/conversation/index.js';
import { spanJudge } from './span-judge.js';
import { trajectoryJudge } from './trajectory-judge.js';

export {
  isJudgeScorer,
  judgeScorer,
  JudgeUnavailableError,
  type AskJudge,
  type JudgeConfig,
  type JudgeQuestion,
  type JudgeRuntime,
  type JudgeScorer,
  type JudgeSpec,
} from './judge-scorer.js';

/** The SPEC's message for an llmJudge with neither a prompt nor criteria. */
export const PROMPT_REQUIRED = 'llmJudge requires a prompt string';

const BuiltInConfig = z.strictObject({
  ...JUDGE_COMMON_CONFIG,
  /** More criteria, added to the rubric. */
  criteria: z.string().trim().min(1).max(MAX_PROMPT_CHARS).optional(),
});

const LlmJudgeConfig = z
  .strictObject({
    ...JUDGE_COMMON_CONFIG,
    prompt: z.string({ error: PROMPT_REQUIRED }).max(MAX_PROMPT_CHARS).optional(),
    criteria: z.string({ error: PROMPT_REQUIRED }).max(MAX_PROMPT_CHARS).optional(),
  })
  .superRefine((config, ctx) => {
    if (!config.prompt?.trim() && !config.criteria?.trim()) ctx.addIssue({ code: 'custom', path: ['prompt'], message: PROMPT_REQUIRED });
  });

type CommonConfig = z.output<typeof BuiltInConfig> & { prompt?: string };

/** The parts of a case every judge can be shown, as text. */
function variables(input: ScoreInput): Record<PromptVariable, string> {
  const expected = Object.keys(input.expected ?? {}).length ? promptText(input.expected) : '';
  return { input: promptText(input.input), output: promptText(input.output), expected, trace: promptText(traceView(input)) };
}

/** What grounding judges against: expected.context, else retrieval spans' outputs, else tool results. */
function groundingContext(input: ScoreInput): string {
  const given = (input.expected as Record<string, unknown>).context;
  if (given !== undefined && given !== null && given !== '') return promptText(given);
  const retrieved = (input.trace?.spans ?? []).filter((s) => s.type === 'retrieval' && s.output !== undefined).map((s) => s.output);
  if (retrieved.length) return promptText(retrieved);
  const results = input.toolCalls.filter((c) => c.output !== undefined).map((c) => ({ tool: c.name, output: c.output }));
  if (results.length) return promptText(results);
  throw new Error('grounding needs context: expected.context, retrieval spans in the trace, or tool calls with outputs');
}

function builtInRequest(rubric: Rubric, config: CommonConfig, input: ScoreInput): JudgeQuestion {
  const v = variables(input);
  const parts: Array<[string, string]> = [['input', v.input]];
  if (rubric.sections.includes('context')) parts.push(['context', groundingContext(input)]);
  parts.push(['output', v.output]);
  if (rubric.sections.includes('expected') && v.expected) parts.push(['expected', v.expected]);
  if (rubric.sections.includes('trace')) parts.push(['trace', v.trace]);
  const criteria = config.criteria ? `${rubric.criteria}\nAlso: ${config.criteria}` : rubric.criteria;
  return { system: systemPrompt(criteria, rubric.bands), prompt: caseBlock(parts) };
}

/**
 * llmJudge: a prompt whose `{{input}}`, `{{output}}`, `{{expected}}` and `{{trace}}` are filled
 * in (a prompt naming none of them is followed by the case), and/or criteria for the system
 * prompt (criteria alone: the case is the message).
 */
function customRequest(config: CommonConfig, input: ScoreInput): JudgeQuestion {
  const v = variables(input);
  const block = caseBlock([['input', v.input], ['output', v.output], ...(v.expected ? [['expected', v.expected] as [string, string]] : [])]);
  const prompt = config.prompt?.trim();
  let message = block;
  if (prompt) message = usesVariables(prompt) ? renderTemplate(prompt, v) : `${prompt}\n\n${block}`;
  return { system: systemPrompt(config.criteria?.trim() || undefined), prompt: message };
}

/** The SPEC's LLM judges (llmJudge and the six built-ins), the trajectory judges (trajectoryJudge, spanJudge): docs/judges.md; and the conversation judges: docs/scorers.md "Conversation scorers". */
export function createJudgeScorers(runtime: JudgeRuntime): JudgeScorer[] {
  return [
    judgeScorer(runtime, {
      name: 'llmJudge',
      description: 'LLM judge with your own prompt ({{input}}, {{output}}, {{expected}}, {{trace}}) or criteria.',
      configSchema: LlmJudgeConfig,
      request: customRequest,
    }),
    ...RUBRICS.map((rubric) =>
      judgeScorer(runtime, {
        name: rubric.name,
        description: rubric.description,
        configSchema: BuiltInConfig,
        request: (config, input) => builtInRequest(rubric, config, input),
      }),
    ),
    trajectoryJudge(runtime),
    spanJudge(runtime),
    ...conversationJudges(runtime),
  ];
}
