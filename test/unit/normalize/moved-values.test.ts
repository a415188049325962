import { describe, expect, it } from 'vitest';
import { MOVED_VALUE_MIN_LENGTH, normalizeSpan } from '../../../collector/normalize/index.js';
import { rawSpan } from './span-builder.js';

describe('large values taken as input/output are stored once', () => {
  const prompt = 'p'.repeat(MOVED_VALUE_MIN_LENGTH + 10);
  const answer = 'a'.repeat(MOVED_VALUE_MIN_LENGTH + 10);

  it('moves them out of the attributes and names where they came from', () => {
    const span = normalizeSpan(
      rawSpan({ 'openinference.span.kind': 'LLM', 'input.value': prompt, 'output.value': answer, 'llm.model_name': 'gpt-4o', 'user.id': 'u1' }),
      'p',
    );
    expect(span.input).toBe(prompt);
    expect(span.output).toBe(answer);
    expect(span.attributes['input.value']).toBeUndefined();
    expect(span.attributes['output.value']).toBeUndefined();
    expect(span.attributes).toMatchObject({
      'agent_eval.input_source': 'input.value',
      'agent_eval.output_source': 'output.value',
      'user.id': 'u1',
      'llm.model_name': 'gpt-4o',
    });
  });

  it('keeps short values and values that differ from the input in the attributes', () => {
    const span = normalizeSpan(rawSpan({ 'openinference.span.kind': 'LLM', 'input.value': 'hi', 'output.value': 'hello', 'metadata.note': prompt + 'x' }), 'p');
    expect(span.attributes).toMatchObject({ 'input.value': 'hi', 'output.value': 'hello', 'metadata.note': prompt + 'x' });
    expect(span.attributes['agent_eval.input_source']).toBeUndefined();
  });
});
