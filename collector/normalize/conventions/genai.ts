import type { RawSpan } from '../../../core/model/raw-span.js';
import { genaiInput, genaiModel, genaiOutput, genaiTokens, hasGenaiContent } from '../genai-fields.js';
import { attrsOf, kindsByComponent, type Classification, type ConventionModule, type Kind } from '../types.js';
import { firstTokens, get, ident, lowerOf, text, withTotal } from '../values.js';

/**
 * OpenTelemetry GenAI semantic conventions (gen_ai.*), from the 1.26 event forms to the
 * 1.37+ `gen_ai.input.messages` / `gen_ai.output.messages` attributes.
 */

/**
 * `gen_ai.operation.name` values. Embeddings are model calls billed by input tokens, so they
 * are generations and count as LLM calls. Agent and workflow invocations contain the model
 * calls (and may report their totals), so they are plain spans: counting them would double
 * the trace's tokens. `agent_step` is the AI SDK 7 per-step wrapper.
 */
const OPERATIONS = kindsByComponent({
  generation: ['chat', 'text_completion', 'generate_content', 'embeddings'],
  tool: ['execute_tool'],
  retrieval: ['retrieval', 'rerank'],
  planning: ['plan'],
  plain: ['invoke_agent', 'create_agent', 'invoke_workflow', 'agent_step'],
});

function operation(raw: RawSpan): string | null {
  return lowerOf(get(attrsOf(raw), 'gen_ai.operation.name'));
}

function provider(raw: RawSpan): string | null {
  const a = attrsOf(raw);
  return ident(get(a, 'gen_ai.provider.name')) ?? ident(get(a, 'gen_ai.system'));
}

function kindOf(raw: RawSpan): Kind {
  const a = attrsOf(raw);
  const op = operation(raw);
  // A provider-specific operation name on a span that names a model is still a model call.
  if (op !== null) return OPERATIONS.get(op) ?? (genaiModel(a) !== null ? ['generation', 'generation'] : ['span', null]);
  if (ident(get(a, 'gen_ai.tool.name')) !== null) return ['tool', 'tool'];
  return ['generation', 'generation'];
}

export const genai: ConventionModule = {
  name: 'genai',
  detect(raw) {
    const a = attrsOf(raw);
    if (operation(raw) !== null) return true;
    if (ident(get(a, 'gen_ai.tool.name')) !== null) return true;
    // Before 1.27 there was no operation name: a provider and a model, or message content, mark a model call.
    if (provider(raw) !== null && genaiModel(a) !== null) return true;
    return hasGenaiContent(raw, a);
  },
  classify(raw): Classification {
    const a = attrsOf(raw);
    const [span_type, component_type] = kindOf(raw);
    const usage = genaiTokens(a);
    const tokens = withTotal(usage.input, usage.output, firstTokens(a, ['gen_ai.usage.total_tokens']));
    const isTool = span_type === 'tool';
    return {
      span_type,
      component_type,
      model: genaiModel(a),
      input: isTool ? text(get(a, 'gen_ai.tool.call.arguments')) : genaiInput(raw, a),
      output: isTool ? text(get(a, 'gen_ai.tool.call.result')) : genaiOutput(raw, a),
      input_tokens: tokens.input,
      output_tokens: tokens.output,
    };
  },
};
