import type { AttrValue, Attributes } from '../../core/model/raw-span.js';
import { isRecord } from './values.js';

/**
 * Several conventions flatten lists into indexed keys, because OTel attributes cannot nest:
 * `gen_ai.prompt.0.role`, `llm.input_messages.1.message.content`,
 * `retrieval.documents.0.document.id`. This rebuilds them into plain JSON structures.
 */

/** Deeper paths are ignored: real conventions nest a handful of levels, and a bound keeps recursion safe. */
const MAX_DEPTH = 16;

class Node {
  readonly children = new Map<string, Node | AttrValue>();
}

function insert(root: Node, path: string[], value: AttrValue): void {
  let node = root;
  for (const seg of path.slice(0, -1)) {
    const next = node.children.get(seg);
    if (next === undefined) {
      const child = new Node();
      node.children.set(seg, child);
      node = child;
    } else if (next instanceof Node) {
      node = next;
    } else {
      return; // `x.0.content` and `x.0.content.y` both present: the leaf wins, the deeper key is dropped
    }
  }
  const last = path[path.length - 1];
  if (!node.children.has(last)) node.children.set(last, value);
}

/** Numeric-keyed levels become arrays ordered by index (compacted, so `x.99999999.y` stays small). */
function build(node: Node): unknown {
  const keys = [...node.children.keys()];
  const numeric = keys.length > 0 && keys.every((k) => /^\d+$/.test(k));
  const value = (k: string): unknown => {
    const child = node.children.get(k);
    return child instanceof Node ? build(child) : child;
  };
  if (numeric) return keys.sort((a, b) => Number(a) - Number(b)).map(value);
  return Object.fromEntries(keys.map((k) => [k, value(k)]));
}

/**
 * The list flattened under `prefix` (`prefix.N.…`), ordered by N; [] when there is none.
 * With `unwrap`, an element that is only `{ [unwrap]: x }` becomes `x` (OpenInference wraps
 * each message in `message.` and each document in `document.`).
 */
export function indexedList(attrs: Attributes, prefix: string, unwrap?: string): unknown[] {
  const root = new Node();
  const p = `${prefix}.`;
  for (const key of Object.keys(attrs)) {
    if (!key.startsWith(p)) continue;
    const path = key.slice(p.length).split('.');
    // `__proto__` would be an own key after rebuilding, but nothing legitimate uses it: drop it.
    if (path.length > MAX_DEPTH || !/^\d+$/.test(path[0]) || path.includes('') || path.includes('__proto__')) continue;
    insert(root, path, attrs[key]);
  }
  if (root.children.size === 0) return [];
  const list = build(root);
  if (!Array.isArray(list)) return [];
  if (unwrap === undefined) return list;
  return list.map((el: unknown) => (isRecord(el) && Object.keys(el).length === 1 && unwrap in el ? el[unwrap] : el));
}

/** True when any key starts with `prefix.` followed by an index. */
export function hasIndexed(attrs: Attributes, prefix: string): boolean {
  const p = `${prefix}.`;
  return Object.keys(attrs).some((k) => k.startsWith(p) && /^\d/.test(k.slice(p.length)));
}
