import type { Attributes, AttrValue } from '../../core/model/raw-span.js';
import { OtlpDecodeError, within } from './errors.js';
import { setDataKey } from '../../core/model/data-key.js';
import { asList, asNode, asString, toBase64, toBool, toDouble, toInt64, type Node } from './scalars.js';

/** Deeper nesting than this is treated as hostile input, not data (it would exhaust the stack). */
export const MAX_DEPTH = 64;

function has(node: Node, key: string): boolean {
  // protobufjs puts oneof defaults on the prototype; only an own property means "set".
  return Object.prototype.hasOwnProperty.call(node, key) && node[key] !== undefined && node[key] !== null;
}

function oneOf(node: Node, camel: string, snake: string): string | undefined {
  if (has(node, camel)) return camel;
  if (has(node, snake)) return snake;
  return undefined;
}

/**
 * OTLP AnyValue -> plain JS (common.proto): string, bool, int (int64 as a number, or its exact
 * decimal string beyond 2^53), double, array, kvlist (an object), bytes (base64). An AnyValue
 * with no field set is the "empty" value and becomes null.
 */
export function anyValueToAttr(value: unknown, depth = 0): AttrValue {
  const node = asNode(value, 'AnyValue');
  if (!node) return null;
  if (depth > MAX_DEPTH) throw new OtlpDecodeError(`AnyValue is nested deeper than ${MAX_DEPTH} levels`);
  let key: string | undefined;
  if ((key = oneOf(node, 'stringValue', 'string_value'))) return asString(node[key], key);
  if ((key = oneOf(node, 'boolValue', 'bool_value'))) return toBool(node[key], key);
  if ((key = oneOf(node, 'intValue', 'int_value'))) return toInt64(node[key], key);
  if ((key = oneOf(node, 'doubleValue', 'double_value'))) return toDouble(node[key], key);
  if ((key = oneOf(node, 'arrayValue', 'array_value'))) {
    const values = asList(asNode(node[key], key)?.values, `${key}.values`);
    return values.map((item, i) => within(`${key}.values[${i}]`, () => anyValueToAttr(item, depth + 1)));
  }
  if ((key = oneOf(node, 'kvlistValue', 'kvlist_value'))) {
    const values = asNode(node[key], key)?.values;
    return within(`${key}.values`, () => keyValuesToAttrs(values, depth + 1));
  }
  if ((key = oneOf(node, 'bytesValue', 'bytes_value'))) return toBase64(node[key], key);
  return null;
}

/**
 * A repeated KeyValue (attributes, kvlist) -> an object. Keys must be unique (common.proto);
 * if a sender repeats one anyway, the last value wins.
 */
export function keyValuesToAttrs(list: unknown, depth = 0): Attributes {
  const out: Attributes = {};
  const items = asList(list, 'attributes');
  for (let i = 0; i < items.length; i++) {
    const kv = asNode(items[i], 'KeyValue');
    if (!kv) continue;
    const key = asString(kv.key, 'key');
    const value = within(`[${i}].value`, () => anyValueToAttr(kv.value, depth));
    setDataKey(out, key, value);
  }
  return out;
}
