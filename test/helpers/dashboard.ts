/**
 * Traces shaped for the dashboard's browser tests and the `ui` benchmark: an agent run with nested
 * steps (a step span, then an LLM call with chat messages and a tool call with JSON under it),
 * ending in one `final answer` span that comes last in the waterfall.
 */

import { ingestTrace, spanAt } from './ingest-trace.js';

export const LAST_SPAN_NAME = 'final answer';

export interface AgentTraceOptions {
  /** Epoch ms of the root's start; default 10 minutes ago. */
  start?: number;
  name?: string;
  status?: 'ok' | 'error';
  /** Bytes of filler text in each LLM prompt (default: a short question). */
  promptBytes?: number;
}

/** Span `i` (1-based) of trace `traceId`, as its id; the root is `${traceId}-root`. */
export const spanId = (traceId: string, i: number) => (i === 0 ? `${traceId}-root` : `${traceId}-s${i}`);

/**
 * A JSON ingest body (POST /api/traces/ingest) of `spanCount` spans (at least 2): the root, then
 * steps of three spans (`step k` > `llm k` + `tool k`), and the last span `final answer` under the
 * root, after everything else. Span `i` starts at `start + 10*i` ms.
 */
export function nestedAgentTrace(traceId: string, spanCount: number, opts: AgentTraceOptions = {}) {
  if (spanCount < 2) throw new Error('nestedAgentTrace needs at least 2 spans');
  const start = opts.start ?? Date.now() - 600_000;
  const end = start + spanCount * 10 + 50;
  const filler = opts.promptBytes ? ' '.padEnd(opts.promptBytes, 'lorem ipsum ') : '';
  const spans: Array<Record<string, unknown>> = [];
  /** Span `i` under span `parent`, `ms` long. */
  const child = (i: number, parent: number, ms: number, fields: { name: string; type: string } & Record<string, unknown>) =>
    spanAt(start, i * 10, ms, { span_id: spanId(traceId, i), parent_span_id: spanId(traceId, parent), ...fields });
  let step = 0;
  for (let i = 1; i < spanCount - 1; i++) {
    const pos = (i - 1) % 3;
    if (pos === 0) {
      step = (i - 1) / 3 + 1;
      spans.push(child(i, 0, 28, { name: `step ${step}`, type: 'planning' }));
    } else if (pos === 1) {
      spans.push(
        child(i, i - 1, 8, {
          name: `llm ${step}`,
          type: 'generation',
          model: 'gpt-4o',
          input_tokens: 100 + step,
          output_tokens: 20 + (step % 50),
          input: [
            { role: 'system', content: 'You are a support agent.' },
            { role: 'user', content: `question ${step}: which refund applies?${filler}` },
          ],
          output: [{ role: 'assistant', content: `answer ${step}: call the search tool` }],
        }),
      );
    } else {
      spans.push(
        child(i, i - 2, 7, {
          name: `tool ${step}`,
          type: 'tool',
          attributes: { tool_name: 'search' },
          input: { query: `refund policy ${step}` },
          output: { results: [{ title: `Refunds ${step}`, score: 0.9 }] },
        }),
      );
    }
  }
  spans.push(
    child(spanCount - 1, 0, 40, {
      name: LAST_SPAN_NAME,
      type: 'generation',
      model: 'gpt-4o',
      input_tokens: 50,
      output_tokens: 12,
      input: [{ role: 'user', content: 'summarize' }],
      output: [{ role: 'assistant', content: 'Refunds within 30 days.' }],
    }),
  );
  const root = {
    span_id: spanId(traceId, 0),
    name: 'agent.run',
    type: 'span',
    input: { question: `What is the refund policy? (${traceId})` },
    output: { answer: 'Refunds within 30 days.' },
  };
  return ingestTrace(traceId, { name: opts.name ?? 'support-bot.run', status: opts.status, start, durationMs: end - start, root, spans });
}

/**
 * The dashboard's elements the tests and the `ui` benchmark look for, by the data-testid
 * attributes of ui/src (one place to change when the UI does).
 */
export const SEL = {
  /** A row of the traces list (ui/src/routes/traces/+page.svelte); `data-trace-id` names its trace. */
  traceRow: '[data-testid="trace-row"]',
  traceRowOf: (traceId: string) => `[data-testid="trace-row"][data-trace-id="${traceId}"]`,
  /** A row of the waterfall (ui/src/lib/components/Waterfall.svelte); `data-span-id` names its span. */
  waterfallRow: '[data-testid="waterfall-row"]',
  waterfallRowOf: (spanId: string) => `[data-testid="waterfall-row"][data-span-id="${spanId}"]`,
  selectedWaterfallRow: '[data-testid="waterfall-row"][aria-selected="true"]',
  /** The waterfall's scrolling element. */
  waterfallViewport: '[data-testid="waterfall-viewport"]',
  /** The selected span's panel (ui/src/lib/components/SpanDetail.svelte); `data-span-id` names it. */
  spanDetail: '[data-testid="span-detail"]',
};
