import { cut } from '../scoring/rules/support.js';
import { round2 } from '../scoring/trajectory/support.js';
import type { SpanNode, SpanTree } from '../scoring/trajectory/span-tree.js';

/**
 * A trace as a judge reads it (docs/judges.md "trajectoryJudge"): a header with what the tree
 * counts, then one step per span, parents before children (indented by depth), each with its
 * place in start order (`[3]`, as reasons name spans: `span 3`), start offset and duration, kind,
 * name, and what matters for its kind: a tool's arguments and result, a model call's model,
 * tokens, cost, prompt and response, a selection's confidence and alternatives, an error's
 * message. Every text is cut to its own cap, and the whole to `maxChars`: when the steps do not
 * fit, failed steps are kept, then as many steps from the start and the end as fit, and each gap
 * says how many steps (model calls, tool calls) it leaves out.
 */

/** Characters of each step's input (arguments, prompt) and output (result, response). */
export const STEP_TEXT_CHARS = 400;
/** Characters of an error message. */
const ERROR_CHARS = 200;
/** Deepest indentation shown (deeper steps are indented as this). */
const MAX_INDENT = 8;
/** Failed steps always kept, at most. */
const MAX_KEPT_ERRORS = 20;

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
const quote = (text: string, max: number) => JSON.stringify(cut(oneLine(text), max));
const ms = (x: number) => `${Math.round(x)} ms`;

/** The header: spans, model calls with tokens and cost, tool calls, errors, wall time. */
function header(tree: SpanTree): string {
  const s = tree.stats();
  const cost = s.pricedLlmCalls ? `, $${s.costUsd.toFixed(4)}${s.unpricedLlmCalls ? ` (${s.unpricedLlmCalls} unpriced)` : ''}` : '';
  return [
    `${s.spans} spans, ${s.llmCalls} model calls (${s.inputTokens} input / ${s.outputTokens} output tokens${cost}), ${s.toolCalls} tool calls, ${s.errors} errors, ${ms(s.wallMs)} wall time.`,
    'Steps, parents before children; [n] is the span in start order, +ms its start from the trace start.',
  ].join('\n');
}

/** What kind of step a span is, in a word. */
function kindOf(n: SpanNode): string {
  if (n.isTool) return 'tool';
  if (n.isLlm) return 'model';
  return n.component ?? (n.type === 'span' ? 'span' : n.type);
}

/** One span as one step (a line, or two with its input and output). */
export function stepText(tree: SpanTree, n: SpanNode, textChars = STEP_TEXT_CHARS): string {
  const start = tree.stats().startMs ?? n.startMs;
  const head = `[${n.order + 1}] +${ms(n.startMs - start)} (${ms(n.durationMs)}) ${kindOf(n)} ${cut(oneLine(n.toolName ?? n.name), 120)}`;
  const parts = [head];
  if (n.isLlm) {
    const cost = n.costUsd === null ? '' : `, $${n.costUsd.toFixed(4)}`;
    parts.push(`model ${n.model ?? 'unknown'} (${n.inputTokens} in / ${n.outputTokens} out tokens${cost})`);
  }
  if (n.selection) {
    const s = n.selection;
    const bits = [
      s.category ? `category ${cut(s.category, 40)}` : '',
      s.confidence !== null ? `confidence ${round2(s.confidence)}` : '',
      s.alternatives.length ? `alternatives ${cut(s.alternatives.join(', '), 120)}` : '',
      s.reason ? `reason ${quote(s.reason, 160)}` : '',
    ].filter(Boolean);
    if (bits.length) parts.push(`selection: ${bits.join('; ')}`);
  }
  if (n.isError) parts.push(`ERROR${n.statusMessage ? ` ${quote(n.statusMessage, ERROR_CHARS)}` : ''}`);
  const line = parts.join(' | ');
  const inLabel = n.isTool ? 'args' : n.isLlm ? 'prompt' : 'input';
  const outLabel = n.isTool ? 'result' : n.isLlm ? 'response' : 'output';
  const io = [n.input ? `${inLabel}: ${cut(oneLine(n.input), textChars)}` : '', n.output ? `${outLabel}: ${cut(oneLine(n.output), textChars)}` : ''].filter(
    Boolean,
  );
  return io.length ? `${line}\n  ${io.join('\n  ')}` : line;
}

/** The longest gap note (counts up to 7 digits). */
const GAP_CHARS = 80;

/** `[… 40 steps not shown: 12 model calls, 25 tool calls …]`. */
function gapText(skipped: readonly SpanNode[]): string {
  const llm = skipped.filter((n) => n.isLlm).length;
  const tools = skipped.filter((n) => n.isTool).length;
  return `[… ${skipped.length} step${skipped.length === 1 ? '' : 's'} not shown: ${llm} model calls, ${tools} tool calls …]`;
}

const indent = (text: string, depth: number) => {
  const pad = '  '.repeat(Math.min(depth, MAX_INDENT));
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');
};

/** The trace as condensed steps, at most `maxChars` characters (the header alone may be longer than a tiny budget). */
export function condenseTrajectory(tree: SpanTree, maxChars: number): string {
  const steps = tree.walk();
  const lines = steps.map((n) => indent(stepText(tree, n), n.depth));
  const head = header(tree);
  const total = lines.reduce((sum, l) => sum + l.length + 1, head.length);
  if (total <= maxChars) return [head, ...lines].join('\n');

  const keep = new Uint8Array(steps.length);
  // Room for the header and the gap notes: one before and one after the ends, one more per failed step kept.
  let left = maxChars - head.length - 2 * (GAP_CHARS + 1);
  // Failed steps first: an error is what a judge most needs to see.
  let kept = 0;
  steps.forEach((n, i) => {
    const cost = lines[i].length + 1 + GAP_CHARS + 1;
    if (n.isError && kept < MAX_KEPT_ERRORS && cost <= left) {
      keep[i] = 1;
      left -= cost;
      kept += 1;
    }
  });
  // Then from both ends: the start (the plan) and the end (the answer), alternately.
  let lo = 0;
  let hi = steps.length - 1;
  for (let fromStart = true; lo <= hi; fromStart = !fromStart) {
    const i = fromStart ? lo++ : hi--;
    if (keep[i]) continue;
    if (lines[i].length + 1 > left) break;
    keep[i] = 1;
    left -= lines[i].length + 1;
  }
  const out = [head];
  let skipped: SpanNode[] = [];
  steps.forEach((n, i) => {
    if (!keep[i]) {
      skipped.push(n);
      return;
    }
    if (skipped.length) out.push(gapText(skipped));
    skipped = [];
    out.push(lines[i]);
  });
  if (skipped.length) out.push(gapText(skipped));
  return out.join('\n');
}
