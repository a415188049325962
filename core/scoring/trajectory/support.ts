import { cut } from '../rules/support.js';
import type { ScoreInput } from '../scorer.js';
import { spanTreeOf } from '../trace-view.js';
import type { SpanNode, SpanTree } from './span-tree.js';

/**
 * The case's trace as a tree; throws, naming the scorer, when the execution has no trace or an
 * empty one: a trace with no span says nothing of what the agent did, and must not pass a budget.
 */
export function requireTree(input: Pick<ScoreInput, 'spanTree' | 'trace'>, scorer: string): SpanTree {
  const tree = spanTreeOf(input);
  if (!tree) throw new Error(`${scorer} needs the case's trace (its spans), and this execution has none`);
  if (tree.spans.length === 0) throw new Error(`${scorer} needs the case's trace (its spans), and this execution's trace has no span`);
  return tree;
}

/** A span as reasons name it: `get_weather (span 4, +1250 ms)`: its tool or span name, its place in start order, its start from the trace's. */
export function spanLabel(tree: SpanTree, node: SpanNode): string {
  const start = tree.stats().startMs ?? node.startMs;
  return `${cut(node.toolName ?? node.name, 60)} (span ${node.order + 1}, +${Math.round(node.startMs - start)} ms)`;
}

/** A tool call in a few words: its name and the start of its arguments. */
export function callText(name: string, argumentsText: string): string {
  const args = argumentsText.replace(/\s+/g, ' ').trim();
  return cut(args ? `${name} ${args}` : name, 120);
}

/** `n thing` / `n things`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** A ratio as reasons show it: 0.3333 -> "0.33". */
export const round2 = (x: number): string => String(Math.round(x * 100) / 100);
