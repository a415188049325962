/**
 * Traces for test/browser/trace-page.test.ts: a research agent's trace of chains (OpenInference
 * CHAIN), each running a sub-agent (AGENT) that calls a model, a tool and the model again, under
 * a GenAI `invoke_agent` root whose output is markdown; a few tools fail; one tool's output holds
 * a sentence found nowhere else.
 */
import { ingestTrace, spanAt } from './ingest-trace.js';

/** The steps whose tool fails, in tree order. */
export const FAILING_STEPS = [40, 150, 151, 300];
/** The step whose tool output holds NEEDLE. */
export const NEEDLE_STEP = 233;
export const NEEDLE = 'The refund was issued to the card ending 4242';
export const ROOT_MARKDOWN = [
  '## Findings',
  '',
  '- **Refunds** are accepted within 30 days',
  '- Shipping takes `3-5 days`',
  '',
  '```json',
  '{"ok": true}',
  '```',
].join('\n');

/** Span ids of a research trace: its root, and step k's chain, agent, first model call, tool and second model call. */
export const researchIds = (traceId: string) => ({
  root: `${traceId}-root`,
  chain: (k: number) => `${traceId}-c${k}`,
  agent: (k: number) => `${traceId}-a${k}`,
  llm: (k: number) => `${traceId}-l${k}`,
  tool: (k: number) => `${traceId}-t${k}`,
  answer: (k: number) => `${traceId}-m${k}`,
});

/**
 * A JSON ingest body of `spanCount` spans: the root, then steps of five spans (chain > agent >
 * model call, tool, model call), 50 ms each, one after another; the last step may be cut short.
 */
export function researchTrace(traceId: string, spanCount: number, opts: { start?: number; name?: string } = {}) {
  const start = opts.start ?? Date.now() - 600_000;
  const ids = researchIds(traceId);
  const spans: Array<Record<string, unknown>> = [];
  const add = (at: number, ms: number, fields: { span_id: string; parent_span_id: string; name: string; type: string } & Record<string, unknown>) => {
    if (spans.length < spanCount - 1) spans.push(spanAt(start, at, ms, fields));
  };
  /** A model call under `parent`: `[input, output]` tokens, a question and its answer. */
  const modelCall = (at: number, ms: number, id: string, parent: string, name: string, model: string, tokens: [number, number], q: string, a: string) =>
    add(at, ms, {
      span_id: id,
      parent_span_id: parent,
      name,
      type: 'generation',
      model,
      input_tokens: tokens[0],
      output_tokens: tokens[1],
      input: [{ role: 'user', content: q }],
      output: [{ role: 'assistant', content: a }],
    });
  for (let k = 1; spans.length < spanCount - 1; k++) {
    const t = (k - 1) * 50;
    const fails = FAILING_STEPS.includes(k);
    add(t, 48, {
      span_id: ids.chain(k),
      parent_span_id: ids.root,
      name: `research step ${k}`,
      type: 'span',
      attributes: { 'openinference.span.kind': 'CHAIN' },
      input: `topic ${k}`,
    });
    add(t + 1, 46, {
      span_id: ids.agent(k),
      parent_span_id: ids.chain(k),
      name: `researcher ${k}`,
      type: 'span',
      attributes: { 'openinference.span.kind': 'AGENT' },
    });
    modelCall(t + 2, 18, ids.llm(k), ids.agent(k), `plan ${k}`, 'gpt-4o', [1200 + k, 80], `What do we know about topic ${k}?`, `Search for topic ${k}.`);
    add(t + 21, 14, {
      span_id: ids.tool(k),
      parent_span_id: ids.agent(k),
      name: `search ${k}`,
      type: 'tool',
      attributes: { tool_name: 'search' },
      input: { query: `topic ${k}` },
      output: k === NEEDLE_STEP ? { result: NEEDLE } : fails ? '' : { result: `notes on topic ${k}` },
      ...(fails ? { status: 'error', status_message: `search ${k} timed out after 10 s` } : {}),
    });
    modelCall(t + 36, 10, ids.answer(k), ids.agent(k), `summarize ${k}`, 'claude-sonnet-4', [900, 120], `Summarize topic ${k}.`, `Topic ${k} is settled.`);
  }
  const steps = Math.ceil((spanCount - 1) / 5);
  const root = {
    span_id: ids.root,
    name: 'research agent',
    type: 'span',
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'researcher' },
    input: 'Summarize our refund and shipping policies.',
    output: ROOT_MARKDOWN,
  };
  const status = spans.some((s) => s.status === 'error') ? 'error' : 'ok';
  return ingestTrace(traceId, { name: opts.name ?? 'research-run', status, start, durationMs: steps * 50 + 20, root, spans });
}

/** Markdown that tries to run, load and style: the page must show it as text and links only. */
export const HOSTILE_MARKDOWN = [
  '# Report',
  '',
  '<img src="x" onerror="window.__xss = 1"><script>window.__xss = 2</script>',
  '',
  '[click me](javascript:window.__xss=3) and [docs](https://example.com/docs)',
  '',
  '![a chart](https://example.com/chart.png)',
  '',
  '<style>body { display: none }</style><iframe src="https://example.com"></iframe>',
  '',
  '**bold** <span style="color: red" onclick="window.__xss = 4">styled</span>',
].join('\n');
