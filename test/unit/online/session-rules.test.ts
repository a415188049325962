import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../core/errors.js';
import type { ScoreDetail } from '../../../core/model/eval-case.js';
import { mergeOnlineRule, parseOnlineRule } from '../../../core/model/online-rule.js';
import { onlineScoreId, onlineSessionScoreId, sessionJudgeTraceId } from '../../../core/online/judge-trace.js';
import { turnsVerdict } from '../../../core/online/score-session.js';
import { sessionScoreInput, sessionTurns } from '../../../core/online/session-input.js';
import type { SessionForScoring, TraceForScoring } from '../../../core/store/online-traces.js';
import { texts } from '../../fixtures/corpus/texts.js';
import { validationIssues } from '../../helpers/thrown.js';
import { scoredSpan } from '../../helpers/span-record.js';

const RULE = '6f1c2b9e-3d4a-4c5b-8e7f-0a1b2c3d4e5f';

const span = scoredSpan;

/** A turn as the store returns it: the corpus's travel question and answer, a tool call. */
function turnTrace(n: number, output: string): TraceForScoring {
  return {
    trace_id: `t${n}`,
    name: 'wayfarer.run',
    status: 'ok',
    start_ms: n * 10_000,
    end_ms: n * 10_000 + 2000,
    duration_ms: 2000,
    total_input_tokens: 100 * n,
    total_output_tokens: 10 * n,
    span_count: 2,
    attributes: { 'session.id': 'conv-1' },
    spans: [
      span(`r${n}`, { input: n === 1 ? texts.travelQuestion : `follow-up ${n}`, output }),
      span(`tool${n}`, {
        parent_span_id: `r${n}`,
        type: 'tool',
        attributes: { tool_name: 'search_flights' },
        input: '{"from":"LIS","to":"TYO"}',
        output: '[]',
      }),
    ],
  };
}

describe('session rule bodies', () => {
  it("fills a session rule's defaults: idle 30 minutes, reevaluate on resume, no delay", () => {
    expect(parseOnlineRule({ name: 'conv', target: 'session', scorers: ['contains'] }).definition).toEqual({
      name: 'conv',
      target: 'session',
      filter: {},
      sample_rate: 1,
      scorers: [{ name: 'contains', config: {} }],
      expected: {},
      idle_seconds: 1800,
      on_resume: 'reevaluate',
      enabled: true,
    });
  });

  it("refuses the other target's settings and idle times out of bounds, naming each", () => {
    const fields = (body: Record<string, unknown>) => validationIssues(() => parseOnlineRule({ name: 'r', scorers: ['contains'], ...body }));
    expect(fields({ target: 'session', delay_seconds: 60 })).toEqual([
      { field: 'delay_seconds', message: 'applies to trace rules only; a session rule waits idle_seconds' },
    ]);
    expect(fields({ idle_seconds: 60 }).map((i) => i.field)).toEqual(['idle_seconds']);
    expect(fields({ target: 'session', idle_seconds: 0.5 }).map((i) => i.field)).toEqual(['idle_seconds']);
    expect(fields({ target: 'session', idle_seconds: 604_801 })[0].message).toBe('must be at most 604800 seconds (7 days)');
  });

  it('keeps the target on PUT: the same is accepted, another refused; other fields merge', () => {
    const { definition } = parseOnlineRule({ name: 'r', target: 'session', scorers: ['contains'], idle_seconds: 60 });
    expect(mergeOnlineRule(definition, { target: 'session', on_resume: 'ignore' })).toEqual({ ...definition, on_resume: 'ignore' });
    expect(mergeOnlineRule(definition, { idle_seconds: null })).toEqual({ ...definition, idle_seconds: 1800 });
    expect(() => mergeOnlineRule(definition, { target: 'trace' })).toThrow(ValidationError);
    expect(() => mergeOnlineRule(definition, { target: null })).toThrow(ValidationError);
  });
});

describe('what a session rule scores', () => {
  const session: SessionForScoring = {
    session_id: 'conv-1',
    trace_count: 5,
    traces: [turnTrace(1, 'Flights found: ok'), turnTrace(2, 'Booked, ok'), turnTrace(3, 'Sorry.')],
  };

  it('reads each trace as a turn, numbered by its place in the whole session', () => {
    const turns = sessionTurns(session, {});
    // Five traces, the latest three read: turns 3 to 5.
    expect(turns.map((t) => [t.view.turn, t.view.traceId, t.view.assistant])).toEqual([
      [3, 't1', 'Flights found: ok'],
      [4, 't2', 'Booked, ok'],
      [5, 't3', 'Sorry.'],
    ]);
    expect(turns[0].view.user).toBe(texts.travelQuestion);
    expect(turns[0].view.toolCalls).toEqual([{ name: 'search_flights', input: '{"from":"LIS","to":"TYO"}', output: '[]' }]);
    expect(turns[0].input.trace?.trace_id).toBe('t1');
  });

  it('gives conversation scorers the whole session, ended idle, with the per-turn verdicts', () => {
    const turns = sessionTurns(session, { outputContains: ['ok'] });
    const verdicts: Array<Record<string, ScoreDetail>> = [
      { contains: { score: 1, reason: 'a', evidence: [] } },
      { contains: { score: 1, reason: 'b', evidence: [] } },
      {},
    ];
    const input = sessionScoreInput('conv-1', turns, verdicts, { outputContains: ['ok'] });
    expect(input.conversation).toMatchObject({ sessionId: 'conv-1', ended: 'idle' });
    expect(input.conversation.turns.map((t) => t.scores)).toEqual([verdicts[0], verdicts[1], undefined]);
    expect(input.conversation.messages[0]).toEqual({ role: 'user', content: texts.travelQuestion });
    expect(input.conversation.messages.at(-1)).toEqual({
      role: 'assistant',
      content: 'Sorry.',
      tool_calls: [{ name: 'search_flights', arguments: '{"from":"LIS","to":"TYO"}' }],
    });
    expect(input).toMatchObject({ input: texts.travelQuestion, output: 'Sorry.', usage: { input_tokens: 600, output_tokens: 60 }, latencyMs: 6000 });
    expect(input.toolCalls).toHaveLength(3);
  });

  it("makes a trace scorer's session score the mean over the turns, naming the lowest", () => {
    const turns = sessionTurns(session, {});
    const v = turnsVerdict(turns, [
      { score: 1, reason: 'fine', evidence: [] },
      { score: 0.5, reason: 'half', evidence: [] },
      { score: 0, reason: 'output does not contain "ok"', evidence: [] },
    ]);
    expect(v.score).toBeCloseTo(0.5, 9);
    expect(v.reason).toBe('mean over 3 turns: 0.500; lowest turn 5 (trace t3): 0.000, output does not contain "ok"');
    expect(v.evidence).toEqual(['turn 3: 1.000', 'turn 4: 0.500', 'turn 5: 0.000']);
    // Every turn an error: the error as it was, counted as one.
    const err = { score: 0, reason: "scorer error: unknown scorer 'nope'", evidence: [] };
    expect(turnsVerdict(turns, [err, err, err])).toEqual(err);
  });

  it("derives ids from (rule, session, generation, scorer), apart from trace rules' ids", () => {
    const id = onlineSessionScoreId(RULE, 'conv-1', 1, 'contains');
    expect(onlineSessionScoreId(RULE, 'conv-1', 1, 'contains')).toBe(id);
    expect(onlineSessionScoreId(RULE, 'conv-1', 2, 'contains')).not.toBe(id);
    expect(onlineScoreId(RULE, 'conv-1', 'contains')).not.toBe(id);
    // A session id holding the separator does not collide with another (rule, session) pair.
    expect(onlineSessionScoreId(RULE, 'a:1', 1, 'x')).not.toBe(onlineSessionScoreId(RULE, 'a', 1, '1:x'));
    expect(sessionJudgeTraceId(RULE, 'conv-1', 1, 'goalCompletion')).toMatch(/^[0-9a-f]{32}$/);
  });
});
