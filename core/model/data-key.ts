/**
 * Sets `map[key] = value` as data, whatever the key. Attribute maps are what agents send, and a
 * `__proto__` key is one of them (JSON.parse and protobuf give it as a key): an assignment would
 * call the prototype setter instead, dropping the entry, or replacing the map's prototype when the
 * value is an object. This defines it as an own, enumerable key, as every other key is.
 */
export function setDataKey(map: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
  else map[key] = value;
}
