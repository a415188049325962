import type { Attributes, RawSpan } from '../../../core/model/raw-span.js';
import { genaiInput, genaiModel, genaiOutput, genaiTokens } from '../genai-fields.js';
import { attrsOf, kindsByComponent, type Classification, type ConventionModule, type Kind } from '../types.js';
import { firstIdent, firstText, firstTokens, get, lowerOf, parseJson, safeJson, withTotal } from '../values.js';

/**
 * Vercel AI SDK telemetry (`experimental_telemetry`). Every call makes a wrapper span
 * (`ai.generateText`) around one or more provider calls (`ai.generateText.doGenerate`), and
 * both report usage: the wrapper the sum over all steps. Only the provider call is a generation.
 */

const OPERATIONS = kindsByComponent({
  plain: ['ai.generateText', 'ai.streamText', 'ai.generateObject', 'ai.streamObject', 'ai.embed', 'ai.embedMany', 'ai.rerank'],
  generation: [
    'ai.generateText.doGenerate',
    'ai.streamText.doStream',
    'ai.generateObject.doGenerate',
    'ai.streamObject.doStream',
    'ai.embed.doEmbed',
    'ai.embedMany.doEmbed',
  ],
  retrieval: ['ai.rerank.doRerank'],
  tool: ['ai.toolCall'],
});

const known = (op: string): boolean => OPERATIONS.has(op);

/** `ai.operationId`, else the span name when it is one the SDK uses (SDK 3 had no operationId). */
function operationId(raw: RawSpan): string | null {
  const id = get(attrsOf(raw), 'ai.operationId');
  if (typeof id === 'string' && id.startsWith('ai.')) return id;
  return typeof raw.name === 'string' && known(raw.name) ? raw.name : null;
}

function kindOf(raw: RawSpan, op: string): Kind {
  // AI SDK 7 (@ai-sdk/otel) labels its per-step span with the legacy doGenerate id but
  // gen_ai.operation.name `agent_step`; the provider call is that span's `chat` child.
  if (lowerOf(get(attrsOf(raw), 'gen_ai.operation.name')) === 'agent_step') return ['span', null];
  return OPERATIONS.get(op) ?? ['span', null];
}

/** Each element of `ai.values` / `ai.embeddings` is JSON text on its own: one JSON array reads better. */
function jsonList(v: unknown): string | null {
  if (!Array.isArray(v)) return firstText(v);
  return safeJson(v.map((el: unknown) => (typeof el === 'string' ? (parseJson(el) ?? el) : el)));
}

function inputOf(op: string, raw: RawSpan, a: Attributes): string | null {
  if (op === 'ai.toolCall') return firstText(get(a, 'ai.toolCall.args'), get(a, 'ai.toolCall.input'), get(a, 'gen_ai.tool.call.arguments'));
  if (op.startsWith('ai.embed')) return jsonList(get(a, 'ai.values')) ?? firstText(get(a, 'ai.value'));
  if (op.startsWith('ai.rerank')) return jsonList(get(a, 'ai.documents'));
  return firstText(get(a, 'ai.prompt.messages'), get(a, 'ai.prompt')) ?? genaiInput(raw, a);
}

function outputOf(op: string, raw: RawSpan, a: Attributes): string | null {
  if (op === 'ai.toolCall') return firstText(get(a, 'ai.toolCall.result'), get(a, 'ai.toolCall.output'), get(a, 'gen_ai.tool.call.result'));
  if (op.startsWith('ai.embed')) return jsonList(get(a, 'ai.embeddings')) ?? firstText(get(a, 'ai.embedding'));
  if (op.startsWith('ai.rerank')) return firstText(get(a, 'ai.ranking'));
  // A step that only calls tools has empty text and its tool calls as the response.
  return firstText(get(a, 'ai.response.text'), get(a, 'ai.response.object'), get(a, 'ai.response.toolCalls')) ?? genaiOutput(raw, a);
}

export const vercelAi: ConventionModule = {
  name: 'vercel-ai',
  detect: (raw) => operationId(raw) !== null,
  classify(raw): Classification {
    const a = attrsOf(raw);
    const op = operationId(raw) ?? '';
    const [span_type, component_type] = kindOf(raw, op);
    const gen = genaiTokens(a);
    const tokens = withTotal(
      // SDK 5+ names, SDK 3-4 names, embeddings' single count, then the gen_ai.* copy.
      firstTokens(a, ['ai.usage.inputTokens', 'ai.usage.promptTokens', 'ai.usage.tokens']) ?? gen.input,
      firstTokens(a, ['ai.usage.outputTokens', 'ai.usage.completionTokens']) ?? gen.output,
      firstTokens(a, ['ai.usage.totalTokens']),
    );
    return {
      span_type,
      component_type,
      model: firstIdent(get(a, 'ai.response.model'), get(a, 'ai.model.id')) ?? genaiModel(a),
      input: inputOf(op, raw, a),
      output: outputOf(op, raw, a),
      input_tokens: tokens.input,
      output_tokens: tokens.output,
    };
  },
};
