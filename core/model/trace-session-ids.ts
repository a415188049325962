/**
 * Which conversation (session) and which end user a span belongs to, read from the attributes
 * every instrumentation convention uses for them (docs/api.md, "Sessions"). Browser-safe.
 *
 * A span's own attributes come before its resource's, and within each the keys in the order
 * below: the OpenTelemetry and OpenInference names first, then Langfuse's, OpenLLMetry's
 * association properties, the Vercel AI SDK's telemetry metadata, and the plain names a JSON body
 * may use. A value counts when it is a usable id: 1 to {@link MAX_SESSION_ID_CHARS} characters (code points),
 * no control characters (an id that would hurt later is not taken; the attribute itself is kept).
 *
 * The same rule, in SQL, backfilled the traces stored before sessions existed
 * (migrations/clickhouse/009): keep the key lists in step with it (a unit test checks).
 */
export const SESSION_ID_KEYS = [
  'session.id',
  'gen_ai.conversation.id',
  'langfuse.session.id',
  'traceloop.association.properties.session_id',
  'ai.telemetry.metadata.sessionId',
  'session_id',
] as const;

export const USER_ID_KEYS = [
  'user.id',
  'enduser.id',
  'langfuse.user.id',
  'traceloop.association.properties.user_id',
  'ai.telemetry.metadata.userId',
  'user_id',
] as const;

export const MAX_SESSION_ID_CHARS = 256;

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Characters as ClickHouse's lengthUTF8 counts them (code points), so both sides take the same ids. */
function codePoints(v: string): number {
  if (v.length <= MAX_SESSION_ID_CHARS) return v.length;
  return Array.from(v).length;
}

function usable(v: string | undefined): v is string {
  return v !== undefined && v.length > 0 && v.length <= 2 * MAX_SESSION_ID_CHARS && codePoints(v) <= MAX_SESSION_ID_CHARS && !CONTROL.test(v);
}

function first(keys: readonly string[], maps: ReadonlyArray<Record<string, string> | undefined>): string | null {
  for (const m of maps) {
    if (!m) continue;
    for (const k of keys) if (usable(m[k])) return m[k];
  }
  return null;
}

/** The session and user ids of a span (or of a JSON body's trace attributes), null where none is given. */
export function sessionIdsOf(attributes: Record<string, string>, resource?: Record<string, string>): { sessionId: string | null; userId: string | null } {
  return { sessionId: first(SESSION_ID_KEYS, [attributes, resource]), userId: first(USER_ID_KEYS, [attributes, resource]) };
}
