import type { LlmProvider, StructuredRequest, StructuredResponse } from '../../../core/providers/types.js';

/** A provider that answers from a list and records what it was asked. */
export function stubProvider(answers: Array<Partial<StructuredResponse> | Error>): LlmProvider & { asked: StructuredRequest[] } {
  const asked: StructuredRequest[] = [];
  return {
    name: 'anthropic',
    defaultModel: 'stub-model',
    asked,
    structured(req) {
      asked.push(req);
      const next = answers.shift();
      if (next instanceof Error) return Promise.reject(next);
      return Promise.resolve({
        value: undefined,
        raw: null,
        model: 'stub-model',
        usage: { input_tokens: 10, output_tokens: 5, cached_input_tokens: 0 },
        stopReason: 'tool_use',
        ...next,
      });
    },
  };
}
