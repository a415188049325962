import { z } from 'zod';
import { cut, ruleScorer } from '../rules/support.js';
import type { Scorer } from '../scorer.js';
import { argumentsKey } from './json-value.js';
import type { SpanNode, SpanTree } from './span-tree.js';
import { callText, requireTree, spanLabel } from './support.js';

/**
 * `loops`: an agent going round in circles, read from its trace (docs/scorers.md "loops"):
 *   - the same tool call (same tool, same arguments: JSON compared key order aside) made more than
 *     `maxRepeats` times anywhere in the trace;
 *   - the same model input (same model, same prompt text) sent more than `maxLlmRepeats` times;
 *   - tool calls alternating between two states, A, B, A, B..., for more than `maxAlternations`
 *     rounds in a row (a state is a call with its arguments, or with `stateBy: tool` the tool alone).
 * Each finding scores allowed / found (5 identical calls with 2 allowed: 0.4); the score is the
 * lowest finding's, 1 without any.
 */

const limit = z.number().int().min(1).max(1_000_000);

const Config = z.strictObject({
  maxRepeats: limit.default(2),
  maxLlmRepeats: limit.default(2),
  maxAlternations: limit.default(2),
  stateBy: z.enum(['call', 'tool']).default('call'),
});

interface Finding {
  score: number;
  text: string;
  evidence: string;
}

export const loopsScorer: Scorer = ruleScorer({
  name: 'loops',
  description:
    'Loops in the trace: the same tool call (tool and arguments) more than config.maxRepeats times, the same LLM input more than config.maxLlmRepeats times, or two states alternating for more than config.maxAlternations rounds; 1 without any, else allowed / found for the worst.',
  config: Config,
  evaluate(input, config) {
    const tree = requireTree(input, 'loops');
    const findings = [
      ...repeatedCalls(tree, config.maxRepeats),
      ...repeatedLlmInputs(tree, config.maxLlmRepeats),
      ...oscillation(tree, config.maxAlternations, config.stateBy),
    ].sort((a, b) => a.score - b.score);
    const stats = tree.stats();
    if (findings.length === 0) {
      return {
        score: 1,
        reason: `no loops in ${stats.toolCalls} tool calls and ${stats.llmCalls} LLM calls (at most ${config.maxRepeats} identical calls, ${config.maxLlmRepeats} identical LLM inputs, ${config.maxAlternations} alternating rounds allowed)`,
        evidence: [],
      };
    }
    const more = findings.length > 1 ? `; and ${findings.length - 1} more loop${findings.length > 2 ? 's' : ''}` : '';
    return { score: findings[0].score, reason: `${findings[0].text}${more}`, evidence: findings.slice(0, 20).map((f) => f.evidence) };
  },
});

/** Nodes grouped by key, groups in the order of their first member. */
function groups<T>(items: readonly T[], keyOf: (item: T) => string | undefined): T[][] {
  const byKey = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    const group = byKey.get(key);
    if (group) group.push(item);
    else byKey.set(key, [item]);
  }
  return [...byKey.values()];
}

function repeatedCalls(tree: SpanTree, max: number): Finding[] {
  return groups(tree.toolCalls(), (c) => `${c.name}\u0000${argumentsKey(c.arguments, c.argumentsText)}`)
    .filter((g) => g.length > max)
    .map((g) => ({
      score: max / g.length,
      text: `the same call ${callText(g[0].name, g[0].argumentsText)} was made ${g.length} times (at most ${max} allowed), first at ${spanLabel(tree, g[0].span)}`,
      evidence: cut(`${g.length}x ${callText(g[0].name, g[0].argumentsText)}: spans ${g.map((c) => c.span.order + 1).join(', ')}`),
    }));
}

function repeatedLlmInputs(tree: SpanTree, max: number): Finding[] {
  return groups(tree.llmCalls(), (n: SpanNode) => (n.input === '' ? undefined : `${n.model ?? ''}\u0000${n.input}`))
    .filter((g) => g.length > max)
    .map((g) => ({
      score: max / g.length,
      text: `the same LLM input was sent ${g.length} times${g[0].model ? ` to ${g[0].model}` : ''} (at most ${max} allowed), first at ${spanLabel(tree, g[0])}`,
      evidence: cut(`${g.length}x the input ${JSON.stringify(cut(g[0].input.replace(/\s+/g, ' '), 100))}: spans ${g.map((n) => n.order + 1).join(', ')}`),
    }));
}

/** The longest stretch of tool calls alternating between two states (A, B, A, B...), when it is over `max` rounds. */
function oscillation(tree: SpanTree, max: number, stateBy: 'call' | 'tool'): Finding[] {
  const calls = tree.toolCalls();
  const states = calls.map((c) => (stateBy === 'tool' ? c.name : `${c.name}\u0000${argumentsKey(c.arguments, c.argumentsText)}`));
  let start = 0;
  let best = { start: 0, length: Math.min(1, states.length) };
  for (let i = 1; i < states.length; i++) {
    if (states[i] === states[i - 1]) {
      start = i;
      continue;
    }
    if (i - start >= 2 && states[i] !== states[i - 2]) start = i - 1;
    if (i - start + 1 > best.length) best = { start, length: i - start + 1 };
  }
  const rounds = Math.floor(best.length / 2);
  if (rounds <= max) return [];
  const [a, b] = [calls[best.start], calls[best.start + 1]];
  const show = (c: (typeof calls)[number]) => (stateBy === 'tool' ? c.name : callText(c.name, c.argumentsText));
  return [
    {
      score: max / rounds,
      text: `the calls alternated between ${show(a)} and ${show(b)} for ${best.length} calls in a row (${rounds} rounds; at most ${max} allowed), from ${spanLabel(tree, a.span)}`,
      evidence: cut(
        `alternating ${rounds} rounds: ${show(a)} / ${show(b)}, spans ${calls
          .slice(best.start, best.start + best.length)
          .map((c) => c.span.order + 1)
          .join(', ')}`,
      ),
    },
  ];
}
