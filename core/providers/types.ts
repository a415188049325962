import type { LlmProviderName } from './settings.js';

export type { LlmProviderName };

/** A JSON Schema object (the subset every provider's structured output takes: object, string, number, array). */
export type JsonSchema = Record<string, unknown>;

/**
 * One request for a structured answer: the model must answer by calling `tool` (Anthropic tool
 * use, an OpenAI JSON schema or forced function, a Gemini response schema), never in free text.
 */
export interface StructuredRequest {
  /** The model to call; the provider's default when absent. */
  model?: string;
  system: string;
  /** The conversation so far: the case to judge, then any re-ask after an unusable answer. */
  messages: Array<{ role: 'user' | 'assistant'; content: string }>;
  tool: { name: string; description: string; schema: JsonSchema };
  maxTokens: number;
  /** Sent only when set: some models (OpenAI's reasoning ones) refuse any but their default. */
  temperature?: number;
  /** A sampling seed, sent to providers that take one (OpenAI `seed`, Gemini `seed`); Anthropic has none. */
  seed?: number;
  /** Bounds this one call (SPEC: an LLM call times out after 5 minutes). */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface LlmUsage {
  input_tokens: number;
  output_tokens: number;
  /** Input tokens served from the provider's prompt cache (counted in input_tokens too). */
  cached_input_tokens: number;
}

/** What the provider answered. `value` is undefined when it gave no structured answer (`problem` says why). */
export interface StructuredResponse {
  value: unknown;
  problem?: string;
  /** The answer as it came (the tool input or JSON text, or any free text), for the judge's span. */
  raw: unknown;
  /** The model that answered (as the provider reports it). */
  model: string;
  usage: LlmUsage;
  /** Why generation stopped (`end_turn`, `tool_use`, `stop`, `length`, `STOP`, `MAX_TOKENS`...). */
  stopReason: string | null;
}

/** One LLM provider behind the one interface judges use (STYLE 2: one small interface, four wirings). */
export interface LlmProvider {
  readonly name: LlmProviderName;
  readonly defaultModel: string;
  structured(req: StructuredRequest): Promise<StructuredResponse>;
}

/**
 * A failed provider call, classified once where the SDK answered (STYLE 6): retryable unless the
 * request itself is at fault (400, 401, 403, 404, 422). `retryAfterMs` is the provider's own
 * Retry-After, when it sent one.
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: LlmProviderName,
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${message}`, options);
    this.name = 'ProviderError';
  }
}

/** The providers a process has, by name. */
export interface ProviderSet {
  get(name: LlmProviderName): LlmProvider | undefined;
  /** The provider a judge uses when its config names none. */
  readonly defaultProvider?: LlmProviderName;
  configured(): LlmProviderName[];
}
