import type { Attributes } from '@opentelemetry/api';
import { afterAll, beforeAll } from 'vitest';
import { decodeIngestBody } from '../../../collector/json/ingest-body.js';
import { normalizeSpan } from '../../../collector/normalize/index.js';
import { loadPriceTable } from '../../../core/cost/price-table.js';
import { priceSpan } from '../../../core/cost/span-cost.js';
import { IngestTraceSchema } from '../../../core/model/ingest-body.js';
import type { RawSpan } from '../../../core/model/raw-span.js';
import type { SpanRecord } from '../../../core/model/span.js';
import { buildSpanTree, type SpanTree } from '../../../core/scoring/trajectory/span-tree.js';
import { recordTrace, SpanKind, SpanStatusCode, type SpanSpec } from '../../e2e/helpers/otel.js';
import { recordingIngest, startHttpReceiver } from '../../fixtures/otlp/harness.js';
import { exportSpans, makeExporter } from '../../fixtures/otlp/sdk.js';
import { toSpanSpecs, type CorpusJsonTrace, type CorpusOtelTrace } from '../../helpers/corpus.js';
import { startedLater } from '../../helpers/test-service-hooks.js';

/**
 * Traces for the trajectory scorers' tests, made the way production makes them: spans recorded by
 * the real OpenTelemetry SDK, exported by its real OTLP/HTTP protobuf exporter to the collector's
 * real receiver (which decodes them: collector/otlp), then normalized (collector/normalize) and
 * priced (core/cost) as ingest does; JSON bodies decoded by the JSON ingest path. The tree is
 * built from those SpanRecords, as the run path will build it from the stored ones.
 */

const prices = loadPriceTable();

/** An OTLP/HTTP receiver that keeps what it decodes; one per test file (close it in afterAll). */
export async function otlpReceiver() {
  const recording = recordingIngest();
  const receiver = await startHttpReceiver(recording.ingest, 64 * 1024 * 1024, 'proj-trajectory');
  return {
    /** Records `specs` with the real SDK, exports them over OTLP/HTTP protobuf, and returns the spans as ingest normalizes and prices them. */
    async records(resource: Attributes, specs: SpanSpec[]): Promise<{ traceId: string; records: SpanRecord[]; ids: Record<string, string> }> {
      const rec = await recordTrace(resource, specs);
      recording.reset();
      const exporter = makeExporter('http/protobuf', receiver.url, 'proj-trajectory');
      const result = await exportSpans(exporter, rec.spans);
      await exporter.shutdown();
      if (result.code !== 0) throw new Error(`OTLP export failed: ${result.error?.message ?? result.code}`);
      return { traceId: rec.traceId, records: normalizeAll(recording.spans()), ids: rec.ids };
    },
    close: () => receiver.close(),
  };
}

/** otlpReceiver as a test file's hooks: started in `beforeAll`, closed in `afterAll`; usable in the file's later hooks and tests. */
export function useOtlpReceiver(): OtlpReceiver {
  let receiver: OtlpReceiver | undefined;
  beforeAll(async () => {
    receiver = await otlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });
  return startedLater(() => receiver, 'the OTLP receiver');
}

export type OtlpReceiver = Awaited<ReturnType<typeof otlpReceiver>>;

function normalizeAll(raws: RawSpan[]): SpanRecord[] {
  const at = Date.now();
  return raws.map((raw) => {
    const record = normalizeSpan(raw, 'proj-trajectory');
    priceSpan(record, prices, at);
    return record;
  });
}

/** A corpus trace recorded, exported and normalized, as a tree (and the span id of each corpus key). */
export async function corpusOtelTree(
  receiver: OtlpReceiver,
  trace: CorpusOtelTrace,
): Promise<{ tree: SpanTree; ids: Record<string, string>; records: SpanRecord[] }> {
  const { traceId, records, ids } = await receiver.records(trace.resource, toSpanSpecs(trace));
  return { tree: buildSpanTree(records, traceId), ids, records };
}

/** A JSON corpus trace through the JSON ingest decoding and the normalizer, as a tree. */
export function corpusJsonTree(trace: CorpusJsonTrace): { tree: SpanTree; records: SpanRecord[] } {
  const { spans } = decodeIngestBody(IngestTraceSchema.parse(JSON.parse(JSON.stringify(trace.body))));
  const records = normalizeAll(spans);
  return { tree: buildSpanTree(records, trace.body.trace_id), records };
}

// ---------------------------------------------------------------------------------------------
// Agent runs with planted behaviour, in the OpenTelemetry GenAI conventions

/** One step of an agent run: a model call or a tool call. */
export type AgentStep =
  | { llm: string; model?: string; input?: string; output?: string; inputTokens?: number; outputTokens?: number; ms?: number; error?: string }
  | { tool: string; args: unknown; result?: string; ms?: number; error?: string };

const GENAI_SCOPE = { name: 'agent-framework', version: '1.4.0' };

/**
 * SpanSpecs of an agent run as a GenAI-instrumented framework records it: an `invoke_agent` root,
 * then each step in sequence under it (`chat {model}` with tokens and messages, `execute_tool
 * {name}` with arguments and result; a failing step with error status and an exception).
 * `args` that is a string is sent as it is (not JSON, when it is not).
 */
export function agentRun(steps: AgentStep[], options: { name?: string; gapMs?: number } = {}): SpanSpec[] {
  const gap = options.gapMs ?? 5;
  let at = 10;
  const specs: SpanSpec[] = [];
  steps.forEach((step, i) => {
    const ms = step.ms ?? 100;
    const start = at;
    const end = at + ms;
    at = end + gap;
    const status = step.error ? { code: SpanStatusCode.ERROR, message: step.error } : undefined;
    if ('llm' in step) {
      const model = step.model ?? 'gpt-4o';
      specs.push({
        key: `s${i}`,
        parent: 'agent',
        name: `chat ${model}`,
        kind: SpanKind.CLIENT,
        scope: GENAI_SCOPE,
        start,
        end,
        status,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': model,
          'gen_ai.usage.input_tokens': step.inputTokens ?? 100,
          'gen_ai.usage.output_tokens': step.outputTokens ?? 20,
          'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: step.input ?? step.llm }] }]),
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'text', content: step.output ?? `answer to ${step.llm}` }], finish_reason: 'stop' },
          ]),
        },
      });
    } else {
      specs.push({
        key: `s${i}`,
        parent: 'agent',
        name: `execute_tool ${step.tool}`,
        kind: SpanKind.INTERNAL,
        scope: GENAI_SCOPE,
        start,
        end,
        status,
        exception: step.error ? new Error(step.error) : undefined,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': step.tool,
          'gen_ai.tool.call.id': `call_${i}`,
          'gen_ai.tool.type': 'function',
          'gen_ai.tool.call.arguments': typeof step.args === 'string' ? step.args : JSON.stringify(step.args),
          ...(step.result !== undefined ? { 'gen_ai.tool.call.result': step.result } : {}),
        },
      });
    }
  });
  return [
    {
      key: 'agent',
      name: `invoke_agent ${options.name ?? 'Planner'}`,
      kind: SpanKind.SERVER,
      scope: GENAI_SCOPE,
      start: 0,
      end: at + 5,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': options.name ?? 'Planner', 'gen_ai.provider.name': 'openai' },
    },
    ...specs,
  ];
}

export const AGENT_RESOURCE: Attributes = { 'service.name': 'trip-planner', 'service.version': '2.3.0', 'telemetry.sdk.language': 'nodejs' };

/** An agent run through the real SDK, OTLP and the normalizer, as a tree. */
export async function agentTree(receiver: OtlpReceiver, steps: AgentStep[], options?: { name?: string; gapMs?: number }): Promise<SpanTree> {
  const { traceId, records } = await receiver.records(AGENT_RESOURCE, agentRun(steps, options));
  return buildSpanTree(records, traceId);
}
