import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SESSION_ID_CHARS, SESSION_ID_KEYS, USER_ID_KEYS, sessionIdsOf } from '../../../core/model/trace-session-ids.js';
import { createTraceStatsRows } from '../../../core/store/clickhouse/trace-stats-rows.js';
import { spanRecord } from '../../helpers/span-record.js';

describe('session and user ids of a span', () => {
  it.each([
    ['OTel GenAI', { 'gen_ai.conversation.id': 'c1', 'user.id': 'u1' }],
    ['OpenInference', { 'session.id': 'c1', 'user.id': 'u1' }],
    ['Langfuse', { 'langfuse.session.id': 'c1', 'langfuse.user.id': 'u1' }],
    ['OpenLLMetry', { 'traceloop.association.properties.session_id': 'c1', 'traceloop.association.properties.user_id': 'u1' }],
    ['Vercel AI SDK', { 'ai.telemetry.metadata.sessionId': 'c1', 'ai.telemetry.metadata.userId': 'u1' }],
    ['a JSON body', { session_id: 'c1', user_id: 'u1' }],
    ['the older enduser.id', { 'session.id': 'c1', 'enduser.id': 'u1' }],
  ])('reads %s', (_name, attributes) => {
    expect(sessionIdsOf(attributes)).toEqual({ sessionId: 'c1', userId: 'u1' });
  });

  it("takes the span's own attributes before its resource's, and keys in their order", () => {
    expect(sessionIdsOf({ 'session.id': 'span' }, { 'session.id': 'resource', 'user.id': 'u-res' })).toEqual({ sessionId: 'span', userId: 'u-res' });
    expect(sessionIdsOf({ 'gen_ai.conversation.id': 'second', 'session.id': 'first' })).toEqual({ sessionId: 'first', userId: null });
    expect(sessionIdsOf({}, {})).toEqual({ sessionId: null, userId: null });
  });

  it('passes over ids that would hurt later: empty, control characters, too long (in code points)', () => {
    expect(sessionIdsOf({ 'session.id': '', 'gen_ai.conversation.id': 'ok' }).sessionId).toBe('ok');
    expect(sessionIdsOf({ 'session.id': 'a\u0000b' }).sessionId).toBeNull();
    expect(sessionIdsOf({ 'session.id': 'line\nbreak' }).sessionId).toBeNull();
    expect(sessionIdsOf({ 'session.id': 'x'.repeat(MAX_SESSION_ID_CHARS + 1) }).sessionId).toBeNull();
    // 256 emoji are 512 UTF-16 units but 256 characters, as ClickHouse's lengthUTF8 counts them.
    expect(sessionIdsOf({ 'session.id': '😀'.repeat(MAX_SESSION_ID_CHARS) }).sessionId).toBe('😀'.repeat(MAX_SESSION_ID_CHARS));
    expect(sessionIdsOf({ 'session.id': '会话 ✓ محادثة' }).sessionId).toBe('会话 ✓ محادثة');
  });

  it('is what the backfill of migration 009 reads, key for key', () => {
    const sql = fs.readFileSync(new URL('../../../migrations/clickhouse/009_trace_sessions.sql', import.meta.url), 'utf8');
    const lists = [
      ...sql.matchAll(
        /arrayFirst\(v -> v != '' AND lengthUTF8\(v\) <= (\d+) AND NOT match\(v, '\[\\\\x00-\\\\x1f\\\\x7f\]'\), \[([^\]]*(?:\][^\]]*)*?)\]\) AS/g,
      ),
    ];
    expect(lists).toHaveLength(2);
    const keysOf = (text: string, map: string) => [...text.matchAll(new RegExp(`\\b${map}\\['([^']+)'\\]`, 'g'))].map((m) => m[1]);
    for (const [list, keys] of [
      [lists[0], SESSION_ID_KEYS],
      [lists[1], USER_ID_KEYS],
    ] as const) {
      expect(Number(list[1])).toBe(MAX_SESSION_ID_CHARS);
      expect(keysOf(list[2], 'attributes')).toEqual([...keys]);
      expect(keysOf(list[2], 'resource_attributes')).toEqual([...keys]);
    }
  });
});

describe("a trace's summary rows", () => {
  const statsOf = (rows: string[]) => rows.map((r) => JSON.parse(r) as { trace_id: string; session_id?: string; user_id?: string });

  it('carry the largest id of the spans, as trace_stats folds them (max over UTF-8 bytes), whatever their order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), { nil: undefined }), { minLength: 1, maxLength: 6 }),
        (ids) => {
          const spans = ids.map((id, i) => spanRecord({ trace_id: 't', span_id: `s${i}`, attributes: id === undefined ? {} : { 'session.id': id } }));
          const usable = ids.filter((id): id is string => id !== undefined && sessionIdsOf({ 'session.id': id }).sessionId !== null);
          const want = usable.length ? usable.reduce((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b)) >= 0 ? a : b)) : undefined;
          for (const order of [spans, [...spans].reverse()]) {
            const rows = createTraceStatsRows();
            for (const s of order) rows.add(s);
            expect(statsOf(rows.rows())[0].session_id).toBe(want);
          }
        },
      ),
    );
  });

  it("take a JSON body's trace attributes", () => {
    const rows = createTraceStatsRows();
    rows.addHeader({
      project_id: 'p',
      trace_id: 't',
      name: 'turn',
      status: 'ok',
      start_time: Date.now(),
      duration_ms: 5,
      attributes: { session_id: 'c9', user_id: 'bob' },
    });
    expect(statsOf(rows.rows())).toEqual([expect.objectContaining({ session_id: 'c9', user_id: 'bob' })]);
  });
});
