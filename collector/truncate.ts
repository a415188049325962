import type { SpanRecord } from '../core/model/span.js';
import { setDataKey } from '../core/model/data-key.js';
import { isTruncationRecord, TRUNCATION_ATTRIBUTES } from '../core/model/truncation.js';

/**
 * A span too large to store whole, made to fit: its largest texts are cut, largest first, until its
 * row is within the limit. Nothing is refused for its size (issue 25; docs/api.md, "Large spans").
 *
 * What can be cut: `input`, `output`, `status_message`, each attribute value, and `events` (whole
 * events, last first, so what remains is still a JSON array). A cut text keeps its beginning, byte
 * for byte, and never splits a character. Each cut is recorded in the span's attributes (the keys
 * of TRUNCATION_ATTRIBUTES) with the original size in UTF-8 bytes, so readers and the API know the
 * text is not whole and how large it was.
 */

type Field = { kind: 'input' | 'output' | 'status_message' | 'events' } | { kind: 'attribute'; key: string };

/** A text's UTF-8 size, from its UTF-16 length where that settles it (at most 3 bytes per unit). */
const utf8Bytes = (s: string): number => Buffer.byteLength(s);

/** The first `maxBytes` UTF-8 bytes of `s` or fewer, ending on a whole character. */
export function cutToBytes(s: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  if (s.length * 3 <= maxBytes) return s;
  const buf = Buffer.from(s);
  if (buf.length <= maxBytes) return s;
  let end = maxBytes;
  // Back off to the start of a UTF-8 sequence: continuation bytes are 10xxxxxx.
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

function textOf(span: SpanRecord, f: Field): string {
  return f.kind === 'attribute' ? span.attributes[f.key] : span[f.kind];
}

/** The largest field that can still be cut, by UTF-16 length (a cheap proxy for its size). */
function largestField(span: SpanRecord, done: Set<string>): Field | null {
  let best: Field | null = null;
  let bestLength = 0;
  const consider = (f: Field, length: number) => {
    const id = f.kind === 'attribute' ? `a:${f.key}` : f.kind;
    if (length > bestLength && !done.has(id)) {
      best = f;
      bestLength = length;
    }
  };
  consider({ kind: 'input' }, span.input.length);
  consider({ kind: 'output' }, span.output.length);
  consider({ kind: 'status_message' }, span.status_message.length);
  consider({ kind: 'events' }, span.events.length);
  for (const key of Object.keys(span.attributes)) if (!isTruncationRecord(key)) consider({ kind: 'attribute', key }, span.attributes[key].length);
  return best;
}

/** Whole events from the start of the JSON array, as many as fit in `maxBytes`. */
function cutEvents(events: string, maxBytes: number): string {
  let list: unknown[];
  try {
    const parsed: unknown = JSON.parse(events);
    list = Array.isArray(parsed) ? parsed : [];
  } catch {
    return '[]';
  }
  const kept: string[] = [];
  let bytes = 2;
  for (const e of list) {
    const text = JSON.stringify(e);
    const size = utf8Bytes(text) + 1;
    if (bytes + size > maxBytes) break;
    kept.push(text);
    bytes += size;
  }
  return `[${kept.join(',')}]`;
}

/** The span with every text that can be cut emptied: the smallest it can be made. */
function emptied(span: SpanRecord): SpanRecord {
  const attributes: Record<string, string> = {};
  for (const key of Object.keys(span.attributes)) setDataKey(attributes, key, '');
  return { ...span, input: '', output: '', status_message: '', events: '[]', attributes };
}

/** Room left for the attributes that record the cuts (a key and a number each). */
const RECORD_ROOM = 512;

/**
 * `span` cut until `encode(span)` is at most `maxBytes` UTF-8 bytes, or null when even with every
 * text cut it is larger (ids, names and keys alone over the limit). `encode` is the row encoder, so
 * the bound holds for the row as stored, escapes included. Mutates and returns `span`.
 */
export function truncateSpan(span: SpanRecord, maxBytes: number, encode: (s: SpanRecord) => string): { span: SpanRecord; line: string } | null {
  let line = encode(span);
  let bytes = utf8Bytes(line);
  if (bytes <= maxBytes) return { span, line };
  // Over even with every text emptied: give up at once, instead of cutting text after text in vain.
  if (utf8Bytes(encode(emptied(span))) + RECORD_ROOM > maxBytes) return null;
  const cut = new Set<string>();
  while (bytes > maxBytes) {
    const field = largestField(span, cut);
    if (!field) return null;
    const text = textOf(span, field);
    const original = utf8Bytes(text);
    // The row is over by `bytes - maxBytes`; escapes make a text take more room in the row than
    // its own bytes, so cut what is over plus room for the record, and check again.
    const keep = Math.max(0, original - (bytes - maxBytes) - RECORD_ROOM);
    const id = field.kind === 'attribute' ? `a:${field.key}` : field.kind;
    cut.add(id);
    if (field.kind === 'attribute') {
      span.attributes[field.key] = cutToBytes(text, keep);
      const record = JSON.parse(span.attributes[TRUNCATION_ATTRIBUTES.attributes] ?? '{}') as Record<string, number>;
      setDataKey(record, field.key, original);
      span.attributes[TRUNCATION_ATTRIBUTES.attributes] = JSON.stringify(record);
    } else {
      span[field.kind] = field.kind === 'events' ? cutEvents(text, keep) : cutToBytes(text, keep);
      span.attributes[TRUNCATION_ATTRIBUTES[field.kind]] = String(original);
    }
    line = encode(span);
    bytes = utf8Bytes(line);
    // A text cut once may still be the largest: let it be cut again if the row is still over.
    if (bytes > maxBytes && utf8Bytes(textOf(span, field)) > RECORD_ROOM) cut.delete(id);
  }
  return { span, line };
}
