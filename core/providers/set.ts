import type { LlmProviderName } from './settings.js';
import type { LlmProvider, ProviderSet } from './types.js';

/** A set over given providers (the configured ones, or a test's). No SDK is loaded here. */
export function providerSet(
  names: LlmProviderName[],
  defaultProvider: LlmProviderName | undefined,
  get: (name: LlmProviderName) => LlmProvider | undefined,
): ProviderSet {
  const known = new Set(names);
  return {
    get: (name) => (known.has(name) ? get(name) : undefined),
    defaultProvider,
    configured: () => [...known],
  };
}

/** No provider at all: judges are known by name and refused at creation (400). */
export const NO_PROVIDERS: ProviderSet = providerSet([], undefined, () => undefined);
