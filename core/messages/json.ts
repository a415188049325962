/**
 * Total readers over stored span values: attributes are text (core/model/span.ts), event
 * attributes and parsed JSON are anything. Every reader answers "nothing" instead of throwing.
 */

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Own-property lookup, so keys such as `constructor` never resolve to Object.prototype. */
export function own(o: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

/** JSON.parse that answers undefined instead of throwing. */
export function parseJson(s: string): unknown {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return undefined;
  }
}

/** Text that looks like a JSON array or object, parsed; undefined when it is not JSON (other text included). */
export function parseStructured(s: string): unknown {
  const t = s.trimStart();
  return t.startsWith('[') || t.startsWith('{') ? parseJson(s) : undefined;
}

/** A value that may be JSON text (attributes are stored as text): parsed when it is a JSON array or object. */
export function jsonish(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const parsed = parseStructured(v);
  return parsed === undefined ? v : parsed;
}

/** JSON text of a value, never throwing (BigInt as a string; what JSON cannot express as a marker). */
export function compactJson(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? '';
  } catch {
    return '"[unserializable]"';
  }
}

/** A value as message text: strings byte for byte, anything else as compact JSON; '' for nothing. */
export function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : compactJson(v);
}

/** A non-empty string, or a number as text; else null. */
export function str(v: unknown): string | null {
  if (typeof v === 'string') return v === '' ? null : v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/** A finite number, or numeric text (attributes store numbers as text); else null. */
export function num(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string' || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** A list of strings from a JSON array (text or value) or a single string; null when it is neither. */
export function stringList(v: unknown): string[] | null {
  const value = jsonish(v);
  if (typeof value === 'string') return value === '' ? null : [value];
  if (!Array.isArray(value)) return null;
  const out = value.map(str).filter((s): s is string => s !== null);
  return out.length > 0 ? out : null;
}

/** Deeper paths are ignored: real conventions nest a handful of levels, and a bound keeps recursion safe. */
const MAX_DEPTH = 16;

type Tree = Map<string, Tree | string>;

/** Numeric-keyed levels become arrays ordered by index; other levels objects. */
function build(node: Tree): unknown {
  const keys = [...node.keys()];
  const value = (k: string): unknown => {
    const child = node.get(k);
    return child instanceof Map ? build(child) : child;
  };
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) return keys.sort((a, b) => Number(a) - Number(b)).map(value);
  return Object.fromEntries(keys.map((k) => [k, value(k)]));
}

/**
 * The list a convention flattened under `prefix` (`prefix.N.…`, OTel attributes cannot nest),
 * rebuilt in index order: `llm.input_messages.0.message.role` -> `[{message: {role}}]`. [] when none.
 */
export function indexedList(attrs: Record<string, string>, prefix: string): unknown[] {
  const root: Tree = new Map();
  const p = `${prefix}.`;
  for (const key of Object.keys(attrs)) {
    if (!key.startsWith(p)) continue;
    const path = key.slice(p.length).split('.');
    if (path.length > MAX_DEPTH || !/^\d+$/.test(path[0]) || path.includes('') || path.includes('__proto__')) continue;
    let node = root;
    let ok = true;
    for (const seg of path.slice(0, -1)) {
      const next = node.get(seg);
      if (next === undefined) {
        const child: Tree = new Map();
        node.set(seg, child);
        node = child;
      } else if (next instanceof Map) node = next;
      else {
        ok = false; // `x.0.content` and `x.0.content.y` both present: the leaf wins
        break;
      }
    }
    const last = path[path.length - 1];
    if (ok && !node.has(last)) node.set(last, attrs[key]);
  }
  if (root.size === 0) return [];
  const list = build(root);
  return Array.isArray(list) ? list : [];
}
