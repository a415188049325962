/**
 * Bounds every value must meet before it may enter a write shared with other clients' data
 * (docs/api.md, "Limits"). They sit well inside what the stored types hold (DateTime64(3) spans
 * 1900..2299, UInt64 durations), so a value that passes can never fail an insert.
 */

/** Earliest accepted time: the day after the epoch (0 is what OTLP senders put for "unset"). */
export const MIN_TIME_MS = Date.UTC(1970, 0, 2);
/** Latest accepted time. */
export const MAX_TIME_MS = Date.UTC(2200, 0, 1);
/** Longest accepted trace duration of the JSON body: ten years. */
export const MAX_DURATION_MS = 10 * 365 * 86_400_000;
/** Longest trace, span and project id. */
export const MAX_ID_LENGTH = 128;

/** Whether `ms` is a time the store can hold and we accept. */
export function isAcceptedTime(ms: number): boolean {
  return Number.isFinite(ms) && ms >= MIN_TIME_MS && ms <= MAX_TIME_MS;
}

/**
 * Most tokens one span may report as its input, output or cached input tokens, and as a total:
 * 10^9. The largest context windows hold about 10^7 tokens, so no real model call comes near it,
 * while 2^53-1 (what a broken counter or an int64 overflow sends) made sums and costs absurd. At
 * this bound a trace's sums stay exact in a double (2^53 / 10^9 is 9 million spans of maximal
 * count) and a span's cost is finite ($10^5 at $100 per million tokens).
 */
export const MAX_TOKENS_PER_SPAN = 1_000_000_000;

/**
 * Every attribute a convention reads a span's token counts from (collector/normalize and the
 * cached-input keys of core/cost/span-cost.ts; test/unit/validation/ids-timestamps-token-counts.test.ts checks that the
 * list has each one they name). The JSON body's top-level `input_tokens` / `output_tokens` are
 * read with the same names.
 */
export const TOKEN_COUNT_ATTRIBUTES = [
  // The SPEC's flat names (JSON ingest).
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  // OpenTelemetry GenAI (current and pre-1.27 names).
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.prompt_tokens',
  'gen_ai.usage.completion_tokens',
  'gen_ai.usage.total_tokens',
  'gen_ai.usage.cache_read.input_tokens',
  'gen_ai.usage.cache_read_input_tokens',
  // OpenInference.
  'llm.token_count.prompt',
  'llm.token_count.completion',
  'llm.token_count.total',
  'llm.token_count.prompt_details.cache_read',
  // OpenLLMetry.
  'llm.usage.prompt_tokens',
  'llm.usage.completion_tokens',
  'llm.usage.total_tokens',
  // Vercel AI SDK.
  'ai.usage.inputTokens',
  'ai.usage.outputTokens',
  'ai.usage.promptTokens',
  'ai.usage.completionTokens',
  'ai.usage.tokens',
  'ai.usage.totalTokens',
  'ai.usage.cachedInputTokens',
] as const;

/** A number as text (some SDKs stringify every attribute): sign, decimals and exponent included, so "-5" and "1e20" are judged too. */
const NUMBER_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/**
 * Why a reported token count cannot be stored, or null when it can (or when `value` is no number
 * at all: such a value is not read as a count, as before). `key` names the attribute.
 */
export function tokenCountProblem(key: string, value: unknown): string | null {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'bigint') n = Number(value);
  else if (typeof value === 'string' && NUMBER_TEXT.test(value)) n = Number(value);
  else return null;
  if (Number.isInteger(n) && n >= 0 && n <= MAX_TOKENS_PER_SPAN) return null;
  const shown = String(value).trim();
  return `${key} is ${shown.length > 40 ? `${shown.slice(0, 40)}...` : shown}; a token count must be a whole number from 0 to ${MAX_TOKENS_PER_SPAN}`;
}

/**
 * Why the token counts a decoded span reports cannot be stored, or null: the first problem of
 * {@link tokenCountProblem} over {@link TOKEN_COUNT_ATTRIBUTES} in its attributes and, for a JSON
 * body's span, its top-level fields (`declared`).
 */
export function reportedTokensProblem(attributes: Record<string, unknown>, declared?: Record<string, unknown>): string | null {
  for (const key of TOKEN_COUNT_ATTRIBUTES) {
    // Own properties only: none of these keys is on Object.prototype, so a plain read is one.
    const v = attributes[key];
    if (v !== undefined) {
      const problem = tokenCountProblem(key, v);
      if (problem) return problem;
    }
  }
  if (declared) {
    for (const key of ['input_tokens', 'output_tokens'] as const) {
      const v = declared[key];
      if (v !== undefined) {
        const problem = tokenCountProblem(key, v);
        if (problem) return problem;
      }
    }
  }
  return null;
}

/**
 * The same bound on a normalized span's counts (after normalizeSpan, and priceSpan for the cached
 * ones): a second guard that holds whatever attribute a convention reads them from.
 */
export function spanTokensProblem(span: { input_tokens: number; output_tokens: number; cached_input_tokens?: number }): string | null {
  return (
    tokenCountProblem('input_tokens', span.input_tokens) ??
    tokenCountProblem('output_tokens', span.output_tokens) ??
    (span.cached_input_tokens === undefined ? null : tokenCountProblem('cached_input_tokens', span.cached_input_tokens))
  );
}

const DAY_MS = 86_400_000;

/**
 * Why a span or trace starting at `startMs` would not be kept, or null: the tables' TTL
 * (RETENTION_DAYS) drops rows whose start is older than the retention, also when they arrive that
 * old, so such data is refused instead of acknowledged and then lost.
 */
export function retentionProblem(startMs: number, retentionDays: number | undefined, now: number): string | null {
  if (retentionDays === undefined || !(startMs < now - retentionDays * DAY_MS)) return null;
  return `start time ${new Date(startMs).toISOString()} is older than the retention of ${retentionDays} days (RETENTION_DAYS)`;
}

/**
 * Deepest nesting of objects and arrays in a JSON request body of /api/* (400 beyond). Stored
 * JSON values may nest 64 levels (MAX_JSON_DEPTH, core/model/pg-json.ts); 128 leaves room for
 * the body around them. Deeper bodies made recursive code (JSON.stringify, schema checks)
 * overflow the stack: a 500 instead of an answer.
 */
export const MAX_BODY_DEPTH = 128;

/** Whether `value` (parsed JSON) nests objects and arrays deeper than `max` levels. Iterative: no recursion, whatever the depth. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const node = values.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    if (Array.isArray(node)) {
      for (const child of node) {
        if (child !== null && typeof child === 'object') {
          values.push(child as object);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in node) {
        const child = (node as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}
