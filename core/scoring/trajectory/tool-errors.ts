import { z } from 'zod';
import { cut, ruleScorer } from '../rules/support.js';
import type { Scorer } from '../scorer.js';
import type { SpanNode, SpanTree, TreeToolCall } from './span-tree.js';
import { plural, requireTree, round2, spanLabel } from './support.js';

/**
 * `toolErrors`: tool calls that failed (status error, or attribute `tool_status: error`) and
 * whether the agent recovered from each (docs/scorers.md "toolErrors"):
 *   retry   a later call of the same tool succeeded (it started after the failed one ended);
 *   answer  the agent's final answer came after the error: the last model call that succeeded
 *           with an output started after the failed call ended (a trace without model calls:
 *           its root ended after it, ok, with an output);
 *   either  (default) one or the other.
 * More unrecovered errors than `maxUnrecovered` (default 0) score 0; otherwise
 * 1 - (unrecovered + recoveredPenalty x recovered) / tool calls (recoveredPenalty 0 by default:
 * a recovered error costs nothing).
 */

const Config = z.strictObject({
  recovery: z.enum(['retry', 'answer', 'either']).default('either'),
  maxUnrecovered: z.number().int().min(0).max(1_000_000).default(0),
  recoveredPenalty: z.number().min(0).max(1).default(0),
  /** Only these tools' calls count (all by default). */
  tools: z.array(z.string().min(1).max(256)).min(1).max(1000).optional(),
});

interface Outcome {
  call: TreeToolCall;
  /** What recovered it, or undefined. */
  by?: string;
}

export const toolErrorsScorer: Scorer = ruleScorer({
  name: 'toolErrors',
  description:
    'Tool calls that failed (status error or tool_status error) and whether the agent recovered (a later successful call of the same tool, or its final answer after the error): 0 past config.maxUnrecovered unrecovered errors, else 1 - (unrecovered + recoveredPenalty x recovered) / tool calls.',
  config: Config,
  evaluate(input, config) {
    const tree = requireTree(input, 'toolErrors');
    const calls = tree.toolCalls().filter((c) => !config.tools || config.tools.includes(c.name));
    const scope = config.tools ? ` of ${config.tools.join(', ')}` : '';
    if (calls.length === 0) return { score: 1, reason: `no tool calls${scope} in the trace`, evidence: [] };
    const failed = calls.filter((c) => c.error);
    if (failed.length === 0) return { score: 1, reason: `none of the ${plural(calls.length, 'tool call')}${scope} failed`, evidence: [] };

    const answer = finalAnswer(tree);
    const outcomes: Outcome[] = failed.map((call) => ({ call, by: recoveredBy(call, calls, answer, config.recovery, tree) }));
    const unrecovered = outcomes.filter((o) => o.by === undefined);
    const recovered = outcomes.length - unrecovered.length;
    const over = unrecovered.length > config.maxUnrecovered;
    const score = over ? 0 : Math.max(0, 1 - (unrecovered.length + config.recoveredPenalty * recovered) / calls.length);

    const head = `${failed.length} of ${plural(calls.length, 'tool call')}${scope} failed: ${recovered} recovered, ${unrecovered.length} not (at most ${config.maxUnrecovered} allowed)`;
    const worst = unrecovered[0] ?? outcomes[0];
    const detail =
      worst.by === undefined
        ? `${spanLabel(tree, worst.call.span)} failed${errorText(worst.call.span)} and was not recovered: ${notRecoveredWhy(worst.call, config.recovery)}`
        : `${spanLabel(tree, worst.call.span)} failed${errorText(worst.call.span)}, recovered by ${worst.by}`;
    const penalty = !over && recovered > 0 && config.recoveredPenalty > 0 ? `; recovered errors cost ${round2(config.recoveredPenalty)} each` : '';
    return {
      score,
      reason: `${head}; ${detail}${penalty}`,
      evidence: outcomes
        .slice(0, 20)
        .map((o) => cut(`${spanLabel(tree, o.call.span)}${errorText(o.call.span)}: ${o.by === undefined ? 'not recovered' : `recovered by ${o.by}`}`)),
    };
  },
});

function errorText(span: SpanNode): string {
  const message = span.statusMessage.replace(/\s+/g, ' ').trim();
  return message ? ` (${JSON.stringify(cut(message, 80))})` : '';
}

/** The final answer: the last model call to end that succeeded with an output; without model calls, the root that did. */
function finalAnswer(tree: SpanTree): SpanNode | undefined {
  const llm = tree.llmCalls();
  if (llm.length > 0) {
    return llm.filter((n) => !n.isError && n.output !== '').reduce<SpanNode | undefined>((last, n) => (!last || n.endMs >= last.endMs ? n : last), undefined);
  }
  const root = tree.roots.find((r) => r.link === 'root') ?? tree.roots[0];
  return root && !root.isError && root.output !== '' && !root.isTool ? root : undefined;
}

function recoveredBy(
  call: TreeToolCall,
  calls: readonly TreeToolCall[],
  answer: SpanNode | undefined,
  recovery: 'retry' | 'answer' | 'either',
  tree: SpanTree,
): string | undefined {
  if (recovery !== 'answer') {
    const retry = calls.find((c) => c !== call && c.name === call.name && !c.error && c.span.startMs >= call.span.endMs);
    if (retry) return `a later successful call, ${spanLabel(tree, retry.span)}`;
  }
  if (recovery !== 'retry' && answer) {
    const after = answer.isLlm ? answer.startMs >= call.span.endMs : answer.endMs >= call.span.endMs;
    if (after) return `the final answer after it, ${spanLabel(tree, answer)}`;
  }
  return undefined;
}

function notRecoveredWhy(call: TreeToolCall, recovery: 'retry' | 'answer' | 'either'): string {
  const retry = `no later successful ${call.name} call`;
  const answer = 'no final answer after it';
  return recovery === 'retry' ? retry : recovery === 'answer' ? answer : `${retry} and ${answer}`;
}
