import type { LlmProviderName, LlmSettings } from './settings.js';
import { LLM_PROVIDERS } from './settings.js';
import { anthropicProvider, vertexAnthropicProvider } from './anthropic.js';
import { vertexGeminiProvider } from './gemini.js';
import { openaiProvider } from './openai.js';
import { providerSet } from './set.js';
import type { LlmProvider, ProviderSet } from './types.js';

export type { LlmProvider, LlmUsage, ProviderSet, StructuredRequest, StructuredResponse } from './types.js';
export { ProviderError } from './types.js';
export { NO_PROVIDERS, providerSet } from './set.js';

/**
 * The configured providers, each built with its official SDK from the settings (never from
 * `process.env`). Clients are created lazily, on first use: a process that never judges never
 * loads Google's credentials.
 */
export function createProviders(settings: LlmSettings): ProviderSet {
  const built = new Map<LlmProviderName, LlmProvider>();
  const build = (name: LlmProviderName): LlmProvider | undefined => {
    switch (name) {
      case 'anthropic':
        return settings.anthropic && anthropicProvider(settings.anthropic);
      case 'openai':
        return settings.openai && openaiProvider(settings.openai);
      case 'vertex-gemini':
        return settings['vertex-gemini'] && vertexGeminiProvider(settings['vertex-gemini']);
      case 'vertex-anthropic':
        return settings['vertex-anthropic'] && vertexAnthropicProvider(settings['vertex-anthropic']);
    }
  };
  return providerSet(
    LLM_PROVIDERS.filter((name) => settings[name] !== undefined),
    settings.defaultProvider,
    (name) => {
      let provider = built.get(name);
      if (!provider) {
        provider = build(name);
        if (provider) built.set(name, provider);
      }
      return provider;
    },
  );
}
