import type { Attributes, RawSpan } from '../../../core/model/raw-span.js';
import { indexedList } from '../flat-list.js';
import { genaiInput, genaiModel, genaiOutput, genaiTokens } from '../genai-fields.js';
import { attrsOf, kindsByComponent, type Classification, type ConventionModule, type Kind } from '../types.js';
import { firstIdent, firstText, firstTokens, get, lowerOf, safeJson, withTotal } from '../values.js';

/**
 * OpenLLMetry (Traceloop). Decorated application code gets `traceloop.span.kind`
 * (workflow / task / agent / tool); instrumented provider calls get `llm.request.type` plus
 * gen_ai.* attributes (the pre-1.27 `gen_ai.prompt.N.*` form) and `llm.usage.total_tokens`.
 */

/** Workflows, tasks and agents are the user's own functions around the calls: plain spans. */
const SPAN_KINDS = kindsByComponent({ plain: ['workflow', 'task', 'agent'], tool: ['tool'] });

const REQUEST_TYPES = kindsByComponent({ generation: ['chat', 'completion', 'embedding'], retrieval: ['rerank'] });

function kindOf(a: Attributes): Kind {
  // The decorator's kind is what the user declared; it wins over a request type on the same span.
  const spanKind = lowerOf(get(a, 'traceloop.span.kind'));
  if (spanKind !== null) return SPAN_KINDS.get(spanKind) ?? ['span', null];
  const requestType = REQUEST_TYPES.get(lowerOf(get(a, 'llm.request.type')) ?? '');
  if (requestType) return requestType;
  // `unknown` and newer request types: a model call when a model is named.
  return model(a) !== null ? ['generation', 'generation'] : ['span', null];
}

function model(a: Attributes): string | null {
  return genaiModel(a) ?? firstIdent(get(a, 'llm.response.model'), get(a, 'llm.request.model'));
}

/** The earliest releases used `llm.prompts.N.*` / `llm.completions.N.*`. */
function legacyList(a: Attributes, prefix: string): string | null {
  const items = indexedList(a, prefix);
  return items.length > 0 ? safeJson(items) : null;
}

export const openllmetry: ConventionModule = {
  name: 'openllmetry',
  detect(raw: RawSpan) {
    const a = attrsOf(raw);
    return lowerOf(get(a, 'traceloop.span.kind')) !== null || lowerOf(get(a, 'llm.request.type')) !== null;
  },
  classify(raw): Classification {
    const a = attrsOf(raw);
    const [span_type, component_type] = kindOf(a);
    const gen = genaiTokens(a);
    const tokens = withTotal(
      gen.input ?? firstTokens(a, ['llm.usage.prompt_tokens']),
      gen.output ?? firstTokens(a, ['llm.usage.completion_tokens']),
      firstTokens(a, ['llm.usage.total_tokens', 'gen_ai.usage.total_tokens']),
    );
    return {
      span_type,
      component_type,
      model: model(a),
      input: firstText(get(a, 'traceloop.entity.input')) ?? genaiInput(raw, a) ?? legacyList(a, 'llm.prompts'),
      output: firstText(get(a, 'traceloop.entity.output')) ?? genaiOutput(raw, a) ?? legacyList(a, 'llm.completions'),
      input_tokens: tokens.input,
      output_tokens: tokens.output,
    };
  },
};
