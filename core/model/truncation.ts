/**
 * Where a span records that a text of it was cut to fit MAX_SPAN_BYTES (collector/truncate.ts):
 * span attributes holding the original size in UTF-8 bytes (for `attributes`: a JSON object of
 * attribute key -> original size). Browser-safe: the dashboard reads them too.
 */
export const TRUNCATION_ATTRIBUTES = {
  input: 'agent_eval.truncated.input_bytes',
  output: 'agent_eval.truncated.output_bytes',
  status_message: 'agent_eval.truncated.status_message_bytes',
  events: 'agent_eval.truncated.events_bytes',
  attributes: 'agent_eval.truncated.attributes_bytes',
} as const;

const RECORD_KEYS = new Set<string>(Object.values(TRUNCATION_ATTRIBUTES));

/** Whether an attribute key is one of the truncation records. */
export const isTruncationRecord = (key: string): boolean => RECORD_KEYS.has(key);

/** The original size in bytes of a span's input or output when it was stored cut, else null. */
export function originalBytes(attributes: Record<string, string>, field: 'input' | 'output'): number | null {
  const v = attributes[TRUNCATION_ATTRIBUTES[field]];
  if (v === undefined) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}
