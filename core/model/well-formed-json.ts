/**
 * JSON text with every lone UTF-16 surrogate replaced by U+FFFD, keys included. JSON.stringify
 * writes a lone surrogate as a `\udXXX` escape, which ClickHouse's JSON functions refuse (the
 * whole object reads as empty) and which reads back as a lone surrogate where the same text sent
 * over protobuf reads back as U+FFFD. Paired surrogates come out as raw characters, so `\ud` in the
 * output can only come from a lone surrogate or a literal backslash before "ud": only then is the
 * value written again, the slow way. Browser-safe.
 */
const LONE_SURROGATE_ESCAPE = '\\ud';

function wellFormed(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k.toWellFormed()] = v;
    return out;
  }
  return value;
}

/** `json` (JSON text) with lone surrogates as U+FFFD. */
export function wellFormedJsonText(json: string): string {
  return json.includes(LONE_SURROGATE_ESCAPE) ? JSON.stringify(JSON.parse(json), wellFormed) : json;
}

/** A value as JSON text with lone surrogates as U+FFFD. */
export function wellFormedJson(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes(LONE_SURROGATE_ESCAPE) ? JSON.stringify(value, wellFormed) : json;
}
