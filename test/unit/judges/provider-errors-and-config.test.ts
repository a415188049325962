import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.js';
import { ConfigError } from '../../../core/errors.js';
import { providerError } from '../../../core/providers/errors.js';

describe('provider errors', () => {
  it('retries rate limits and server errors, honouring Retry-After, and not refused requests', () => {
    const limited = providerError('openai', Object.assign(new Error('429 slow down'), { status: 429, headers: new Headers({ 'retry-after': '3' }) }));
    expect(limited).toMatchObject({ retryable: true, status: 429, retryAfterMs: 3000, message: 'openai: 429 slow down' });
    expect(providerError('openai', Object.assign(new Error('boom'), { status: 503 }))).toMatchObject({ retryable: true, message: 'openai: 503 boom' });
    expect(providerError('anthropic', Object.assign(new Error('bad'), { status: 400 }))).toMatchObject({ retryable: false, status: 400 });
    expect(providerError('vertex-gemini', new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') }))).toMatchObject({
      retryable: true,
      message: 'vertex-gemini: call failed: fetch failed (ECONNREFUSED)',
    });
  });

  it('passes a cancellation through untouched', () => {
    const controller = new AbortController();
    controller.abort();
    const abort = new Error('aborted');
    expect(providerError('openai', abort, controller.signal)).toBe(abort);
  });
});

describe('provider configuration', () => {
  it('configures each provider from its own variables and picks the first as the default', () => {
    const none = loadConfig({}).llm;
    expect(none.defaultProvider).toBeUndefined();
    expect(none.anthropic).toBeUndefined();
    const c = loadConfig({
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      GOOGLE_CLOUD_PROJECT: 'p',
      CLOUD_ML_REGION: 'us-east5',
      JUDGE_MODEL_OPENAI: 'gpt-x',
    }).llm;
    expect(c.defaultProvider).toBe('openai');
    expect(c.openai).toMatchObject({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1/v1', model: 'gpt-x', structuredOutput: 'json_schema' });
    expect(c['vertex-gemini']).toMatchObject({ project: 'p', location: 'global' });
    expect(c['vertex-anthropic']).toMatchObject({ project: 'p', region: 'us-east5' });
    expect(loadConfig({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o', JUDGE_PROVIDER: 'openai' }).llm.defaultProvider).toBe('openai');
  });

  it('refuses a JUDGE_PROVIDER whose credentials are not set', () => {
    expect(() => loadConfig({ JUDGE_PROVIDER: 'anthropic' })).toThrow(ConfigError);
    expect(() => loadConfig({ JUDGE_PROVIDER: 'anthropic' })).toThrow(/JUDGE_PROVIDER: 'anthropic' is not configured \(ANTHROPIC_API_KEY is not set\)/);
  });
});
