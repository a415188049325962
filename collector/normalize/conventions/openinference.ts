import type { Attributes } from '../../../core/model/raw-span.js';
import { indexedList } from '../flat-list.js';
import { attrsOf, kindsByComponent, type Classification, type ConventionModule } from '../types.js';
import { firstIdent, firstTokens, get, safeJson, text, withTotal } from '../values.js';

/** OpenInference (Arize Phoenix): `openinference.span.kind` plus flattened llm.* / retrieval.* keys. */

/**
 * Span kinds. EMBEDDING is a model call (counted like the GenAI `embeddings` operation).
 * RERANKER scores documents for retrieval. AGENT and CHAIN wrap the real LLM spans and often
 * carry their children's token totals, so they stay plain spans; GUARDRAIL and EVALUATOR are
 * checks, not components the SPEC names. PROMPT is template rendering: the `prompt` component.
 */
const KINDS = kindsByComponent({
  generation: ['LLM', 'EMBEDDING'],
  tool: ['TOOL'],
  retrieval: ['RETRIEVER', 'RERANKER'],
  prompt: ['PROMPT'],
  plain: ['CHAIN', 'AGENT', 'GUARDRAIL', 'EVALUATOR'],
});

function spanKind(attrs: Attributes): string | null {
  const v = get(attrs, 'openinference.span.kind');
  return typeof v === 'string' && v.trim() !== '' ? v.trim().toUpperCase() : null;
}

function list(attrs: Attributes, prefix: string, unwrap: string): string | null {
  const items = indexedList(attrs, prefix, unwrap);
  return items.length > 0 ? safeJson(items) : null;
}

/** Where a span's text may be: the first source with one wins. */
type Source = (a: Attributes) => string | null;

const inputValue: Source = (a) => text(get(a, 'input.value'));
const outputValue: Source = (a) => text(get(a, 'output.value'));

/** The sources of a span's input by kind, in order; kinds not listed read input.value. */
const INPUTS: Record<string, Source[]> = {
  // Messages are the prompt itself; input.value is often the whole provider request body.
  LLM: [(a) => list(a, 'llm.input_messages', 'message'), inputValue],
  EMBEDDING: [inputValue, (a) => list(a, 'embedding.embeddings', 'embedding')],
  // tool.parameters is the tool's declared parameter schema: only a fallback for the call's arguments.
  TOOL: [inputValue, (a) => text(get(a, 'tool.parameters'))],
  RERANKER: [(a) => text(get(a, 'reranker.query')), inputValue],
};

/** The sources of a span's output by kind, in order; kinds not listed read output.value. */
const OUTPUTS: Record<string, Source[]> = {
  LLM: [(a) => list(a, 'llm.output_messages', 'message'), outputValue],
  RETRIEVER: [(a) => list(a, 'retrieval.documents', 'document'), outputValue],
  RERANKER: [(a) => list(a, 'reranker.output_documents', 'document'), outputValue],
};

function firstText(sources: Source[], a: Attributes): string | null {
  for (const source of sources) {
    const found = source(a);
    if (found !== null) return found;
  }
  return null;
}

export const openinference: ConventionModule = {
  name: 'openinference',
  detect: (raw) => spanKind(attrsOf(raw)) !== null,
  classify(raw): Classification {
    const a = attrsOf(raw);
    const kind = spanKind(a) ?? 'UNKNOWN';
    const [span_type, component_type] = KINDS.get(kind) ?? (['span', null] as const);
    const tokens = withTotal(
      firstTokens(a, ['llm.token_count.prompt']),
      firstTokens(a, ['llm.token_count.completion']),
      firstTokens(a, ['llm.token_count.total']),
    );
    return {
      span_type,
      component_type,
      model: firstIdent(get(a, 'llm.model_name'), get(a, 'embedding.model_name'), get(a, 'reranker.model_name')),
      input: firstText(INPUTS[kind] ?? [inputValue], a),
      output: firstText(OUTPUTS[kind] ?? [outputValue], a),
      input_tokens: tokens.input,
      output_tokens: tokens.output,
    };
  },
};
