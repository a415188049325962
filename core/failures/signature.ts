import { createHash } from 'node:crypto';
import { MAX_EXAMPLES, type FailureExample, type FailureGroup, type FailureSignature } from '../model/failures.js';

/** One failure to group: what it shares with others like it, and how it shows as an example. */
export interface Failure {
  signature: FailureSignature;
  example: FailureExample;
}

/** The signature's stable key: 16 hex digits of a SHA-256 over its fields (the same in every answer and every process). */
export function signatureKey(sig: FailureSignature): string {
  const text = JSON.stringify([sig.kind, sig.error_type, sig.scorer, sig.span_path, sig.message]);
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * Failures grouped by signature: the most failures first, ties by key, each group's examples the
 * first MAX_EXAMPLES found in the order given. The same failures in the same order always give the
 * same answer.
 */
export function groupFailures(failures: readonly Failure[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const f of failures) {
    const key = signatureKey(f.signature);
    let group = groups.get(key);
    if (!group) {
      group = { key, signature: f.signature, count: 0, examples: [], label: null };
      groups.set(key, group);
    }
    group.count++;
    if (group.examples.length < MAX_EXAMPLES) group.examples.push(f.example);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
