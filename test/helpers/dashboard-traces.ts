/**
 * Traces and selectors for test/browser/traces-filters-feedback-compare.test.ts: the traces list's filters and score
 * column, the trace page's content views and feedback forms, and trace comparison.
 */

import { ingestTrace, spanAt } from './ingest-trace.js';

export interface ChildSpan {
  id: string;
  name: string;
  type: string;
  /** Offset of the start from the trace's start, and the span's duration, in ms. */
  at: number;
  ms: number;
  parent?: string;
  model?: string;
  input?: unknown;
  output?: unknown;
  input_tokens?: number;
  output_tokens?: number;
  status?: 'ok' | 'error';
}

/** A JSON ingest body: a root span `${id}-root` named `root` and the given spans (under the root unless `parent`). */
export function traceBody(id: string, opts: { name: string; start: number; durationMs: number; status?: 'ok' | 'error'; root?: string; spans: ChildSpan[] }) {
  const spans = opts.spans.map((s) =>
    spanAt(opts.start, s.at, s.ms, {
      span_id: s.id,
      parent_span_id: s.parent ?? `${id}-root`,
      name: s.name,
      type: s.type,
      ...(s.status ? { status: s.status } : {}),
      ...(s.model ? { model: s.model } : {}),
      ...(s.input_tokens === undefined ? {} : { input_tokens: s.input_tokens, output_tokens: s.output_tokens ?? 0 }),
      ...(s.input === undefined ? {} : { input: s.input }),
      ...(s.output === undefined ? {} : { output: s.output }),
    }),
  );
  const root = { span_id: `${id}-root`, name: opts.root ?? 'agent.run', type: 'span' };
  return ingestTrace(id, { name: opts.name, status: opts.status, start: opts.start, durationMs: opts.durationMs, root, spans });
}

/** The last words of the long text output, past the fold. */
export const LONG_TEXT_TAIL = 'THE END OF THE LONG OUTPUT';

/** A text of about `chars` characters in lines, ending with LONG_TEXT_TAIL. */
export function longText(chars: number): string {
  const lines: string[] = [];
  let n = 0;
  for (let i = 1; n < chars; i++) {
    const line = `line ${i}: the agent considered the refund policy and the customer's order history.`;
    lines.push(line);
    n += line.length + 1;
  }
  return `${lines.join('\n')}\n${LONG_TEXT_TAIL}`;
}

/** A nested JSON output: a `config` object two levels down holding `retries`, and more. */
export const NESTED_JSON = {
  status: 'done',
  result: {
    config: { retries: 3, backoff: { initial_ms: 100, max_ms: 2000 } },
    items: [
      { id: 1, title: 'Refund policy', tags: ['billing', 'refunds'] },
      { id: 2, title: 'Shipping times', tags: ['shipping'] },
    ],
  },
};

export const SEL_TRACES = {
  traceRow: '[data-testid="trace-row"]',
  traceRowOf: (id: string) => `[data-testid="trace-row"][data-trace-id="${id}"]`,
  scoreChip: '[data-testid="trace-score-chip"]',
  spanDetail: '[data-testid="span-detail"]',
  contentInput: '[data-testid="content-input"]',
  contentOutput: '[data-testid="content-output"]',
  chatMessage: '[data-testid="chat-message"]',
  toolCall: '[data-testid="chat-tool-call"]',
  jsonTree: '[data-testid="json-tree"]',
  jsonNode: '[data-testid="json-node"]',
  foldedText: '[data-testid="folded-text"]',
  foldedToggle: '[data-testid="folded-toggle"]',
  scoreRow: '[data-testid="score-row"]',
  feedbackItem: '[data-testid="feedback-item"]',
  compareRow: '[data-testid="trace-compare-row"]',
  compareRowAt: (path: string) => `[data-testid="trace-compare-row"][data-path="${path}"]`,
};
