import type { LlmProvider, StructuredRequest, StructuredResponse } from '../../../core/providers/types.js';

/**
 * A provider that answers from a list (an empty answer once the list is spent) and records what it
 * was asked; by default Anthropic's `stub-model` ending on a tool call.
 */
export function stubProvider(
  answers: Array<Partial<StructuredResponse> | Error>,
  as: { name?: LlmProvider['name']; model?: string; stopReason?: StructuredResponse['stopReason'] } = {},
): LlmProvider & { asked: StructuredRequest[] } {
  const asked: StructuredRequest[] = [];
  const model = as.model ?? 'stub-model';
  return {
    name: as.name ?? 'anthropic',
    defaultModel: model,
    asked,
    structured(req) {
      asked.push(req);
      const next = answers.shift();
      if (next instanceof Error) return Promise.reject(next);
      return Promise.resolve({
        value: undefined,
        raw: null,
        model,
        usage: { input_tokens: 10, output_tokens: 5, cached_input_tokens: 0 },
        stopReason: as.stopReason ?? 'tool_use',
        ...next,
      });
    },
  };
}
