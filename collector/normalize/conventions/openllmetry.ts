import type { Attributes, RawSpan } from '../../../core/model/raw-span.js';
import type { ComponentType, SpanType } from '../../../core/model/span.js';
import { indexedList } from '../flat-list.js';
import { genaiInput, genaiModel, genaiOutput, genaiTokens } from '../genai-fields.js';
import { attrsOf, type Classification, type ConventionModule } from '../types.js';
import { firstIdent, firstText, firstTokens, get, lowerOf, safeJson, withTotal } from '../values.js';

/**
 * OpenLLMetry (Traceloop). Decorated application code gets `traceloop.span.kind`
 * (workflow / task / agent / tool); instrumented provider calls get `llm.request.type` plus
 * gen_ai.* attributes (the pre-1.27 `gen_ai.prompt.N.*` form) and `llm.usage.total_tokens`.
 */

type Kind = readonly [SpanType, ComponentType | null];

/** Workflows, tasks and agents are the user's own functions around the calls: plain spans. */
const SPAN_KINDS: Record<string, Kind> = {
  workflow: ['span', null],
  task: ['span', null],
  agent: ['span', null],
  tool: ['tool', 'tool'],
};

const REQUEST_TYPES: Record<string, Kind> = {
  chat: ['generation', 'generation'],
  completion: ['generation', 'generation'],
  embedding: ['generation', 'generation'],
  rerank: ['retrieval', 'retrieval'],
};

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function kindOf(a: Attributes): Kind {
  // The decorator's kind is what the user declared; it wins over a request type on the same span.
  const spanKind = lowerOf(get(a, 'traceloop.span.kind'));
  if (spanKind !== null) return has(SPAN_KINDS, spanKind) ? SPAN_KINDS[spanKind] : ['span', null];
  const requestType = lowerOf(get(a, 'llm.request.type'));
  if (requestType !== null && has(REQUEST_TYPES, requestType)) return REQUEST_TYPES[requestType];
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
