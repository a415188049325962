import { describe, expect, it } from 'vitest';
import { compareRuns, type ComparableCase } from '../../../core/evals/compare.js';
import {
  comparableConversation,
  compareConversations,
  numbersIn,
  wordSimilarity,
  words,
  type ComparableConversation,
} from '../../../core/evals/compare-turns.js';
import type { CaseResultView, TurnResult } from '../../../core/model/eval-run.js';
import { baselineTurns, candidateTurns, ORDER, USER_TURNS } from '../../helpers/compare-conversations.js';

const conv = (turns: TurnResult[], ended: ComparableConversation['ended'] = 'script_done', trial = 0): ComparableConversation => ({
  trial,
  turns,
  ended,
  trace_id: `trace-${trial}`,
});
const noScores = { baseline: {}, candidate: {} };

describe('comparing two conversations turn by turn', () => {
  it('marks turn 5 as the first divergence when the candidate forgets the order number there, not the turns it only words differently', () => {
    const c = compareConversations(conv(baselineTurns()), conv(candidateTurns()), noScores);
    expect(c.first_divergence).toEqual({ turn: 5, reasons: ['pass_fail', 'numbers', 'answer_text'] });
    expect(c.turns.map((t) => t.turn)).toEqual([1, 2, 3, 4, 5, 6]);
    // Turns 1-4 and 6: multi-paragraph answers in other words, the same facts and tools: no divergence.
    for (const t of c.turns.filter((t) => t.turn !== 5)) {
      expect(t.divergence, `turn ${t.turn}`).toEqual([]);
      expect(t.answer_similarity!, `turn ${t.turn}`).toBeGreaterThanOrEqual(0.5);
      expect(t.delta).toBe(0);
    }
    const five = c.turns[4];
    expect(five.answer_similarity!).toBeLessThan(0.2);
    expect(five.delta).toBe(-1);
    expect(five.scores).toEqual([{ scorer: 'contains', baseline_score: 1, candidate_score: 0, delta: -1 }]);
    // Both sides' words, as they were said.
    expect(five.baseline).toMatchObject({ user: USER_TURNS[4], passed: true, error: null });
    expect(five.baseline!.output).toContain(`order ${ORDER}`);
    expect(five.candidate!.output).toContain('Could you tell me the order number again');
    expect(c.turns[0].baseline!.tool_calls).toEqual([expect.objectContaining({ name: 'lookup_order' })]);
    expect(c.baseline).toEqual({ trial: 0, turn_count: 6, ended: 'script_done', trace_id: 'trace-0' });
  });

  it('aligns conversations of different lengths: the turns one of them never had diverge as missing', () => {
    const c = compareConversations(conv(baselineTurns(), 'goal_met'), conv(candidateTurns().slice(0, 4), 'gave_up'), noScores);
    expect(c.first_divergence).toEqual({ turn: 5, reasons: ['missing_turn'] });
    expect(c.turns).toHaveLength(6);
    expect(c.turns[5]).toMatchObject({ turn: 6, candidate: null, delta: null, answer_similarity: null, divergence: ['missing_turn'] });
    expect(c.turns[5].scores).toEqual([{ scorer: 'contains', baseline_score: 1, candidate_score: null, delta: null }]);
    expect([c.baseline.ended, c.candidate.ended, c.baseline.turn_count, c.candidate.turn_count]).toEqual(['goal_met', 'gave_up', 6, 4]);
  });

  it('counts other tools, other numbers, an agent error and a simulated user taking another path as divergence', () => {
    const skipsLookup = candidateTurns();
    skipsLookup[0] = { ...skipsLookup[0], tool_calls: [] };
    expect(compareConversations(conv(baselineTurns()), conv(skipsLookup), noScores).first_divergence).toEqual({ turn: 1, reasons: ['tool_calls'] });

    const wrongNumber = baselineTurns();
    wrongNumber[2] = { ...wrongNumber[2], output: String(wrongNumber[2].output).replace('24 hours', '48 hours') };
    const numbers = compareConversations(conv(baselineTurns()), conv(wrongNumber), noScores);
    expect(numbers.first_divergence).toEqual({ turn: 3, reasons: ['numbers'] });
    expect(numbers.turns[2].answer_similarity!).toBeGreaterThan(0.9);

    const failed = baselineTurns();
    failed[1] = { ...failed[1], output: null, error: 'agent call timed out after 30000 ms', passed: false, details: {}, avg_score: null };
    const error = compareConversations(conv(baselineTurns()), conv(failed), noScores);
    expect(error.first_divergence).toEqual({ turn: 2, reasons: ['pass_fail', 'numbers', 'answer_text'] });
    expect(error.turns[1].candidate).toMatchObject({ error: 'agent call timed out after 30000 ms', passed: false });

    const otherUser = baselineTurns();
    otherUser[3] = { ...otherUser[3], user: 'Actually, forget the refund: please send a new kettle instead.' };
    expect(compareConversations(conv(baselineTurns()), conv(otherUser), noScores).first_divergence).toEqual({ turn: 4, reasons: ['user_message'] });
  });

  it('finds no divergence between two identical conversations, and compares their conversation-level scores', () => {
    const c = compareConversations(conv(baselineTurns()), conv(baselineTurns(), 'script_done', 1), {
      baseline: { knowledgeRetention: 1, goalCompletion: 0.9 },
      candidate: { knowledgeRetention: 0.25, goalCompletion: 0.9, turnsToGoal: 0.5 },
    });
    expect(c.first_divergence).toBeNull();
    expect(c.turns.every((t) => t.answer_similarity === 1)).toBe(true);
    expect(c.candidate.trial).toBe(1);
    expect(c.conversation_scores).toEqual([
      { scorer: 'goalCompletion', baseline_score: 0.9, candidate_score: 0.9, delta: 0 },
      { scorer: 'knowledgeRetention', baseline_score: 1, candidate_score: 0.25, delta: -0.75 },
      { scorer: 'turnsToGoal', baseline_score: null, candidate_score: 0.5, delta: null },
    ]);
  });
});

describe('what counts as the same answer', () => {
  it('reads words across scripts, leaving out punctuation, markdown and emoji', () => {
    expect(words('**Refund** started — ref. R-88 😊')).toEqual(['refund', 'started', 'ref', 'r', '88']);
    expect(words('שלום דנה, ההחזר אושר')).toEqual(['שלום', 'דנה', 'ההחזר', 'אושר']);
    expect(words('退款已开始')).toEqual(['退', '款', '已', '开', '始']);
    expect(words('订单4417已退款 ok')).toEqual(['订', '单', '4417', '已', '退', '款', 'ok']);
    expect(words('abc退款')).toEqual(['abc', '退', '款']);
    expect(wordSimilarity('', '')).toBe(1);
    expect(wordSimilarity('Yes.', 'No.')).toBe(0);
    expect(wordSimilarity('Yes.', 'yes!')).toBe(1);
  });

  it('compares two 600 KB answers in well under 2 s, even on a loaded machine', () => {
    const long = (seed: string) => Array.from({ length: 10_500 }, (_, i) => `${seed} paragraph ${i}: the kettle ships from depot 12 🚚`).join('\n\n');
    const b = baselineTurns();
    const c = baselineTurns();
    b[2] = { ...b[2], output: long('Baseline') };
    c[2] = { ...c[2], output: long('Candidate') };
    expect(String(b[2].output).length).toBeGreaterThan(600_000);
    const started = performance.now();
    const r = compareConversations(conv(b), conv(c), noScores);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(r.turns[2].divergence).toEqual([]);
    expect(r.turns[2].answer_similarity!).toBeGreaterThan(0.8);
  });

  it('takes numbers as stated facts, not a list numbering nor a thousands separator', () => {
    expect([...numbersIn('1. Pack the kettle\n2) Print label 4,417\n3. Ship by 12.5 pm')]).toEqual(['4417', '12.5']);
    expect(numbersIn('Visa ending 0042')).toEqual(new Set(['42']));
  });
});

describe('compareRuns with conversation cases', () => {
  const trial = (turns: TurnResult[], status: 'passed' | 'failed' | 'cancelled' = 'passed', n = 0) => ({
    trial: n,
    status,
    details: {},
    avg_score: 1,
    passed: status === 'passed',
    duration_ms: 1000,
    latency_ms: 900,
    output: turns.at(-1)?.output ?? null,
    tool_calls: null,
    usage: null,
    approval: null,
    error: null,
    trace_id: `trace-${n}`,
    turns,
    conversation: { ended: 'script_done' as const, turns_done: turns.length },
  });

  it("reads the case's first trial that ran, and nothing of a single-turn case", () => {
    const result = { trials: [trial([], 'cancelled', 0), trial(candidateTurns(), 'failed', 1)] } as Pick<CaseResultView, 'trials'>;
    expect(comparableConversation(result).conversation).toMatchObject({ trial: 1, ended: 'script_done', trace_id: 'trace-1' });
    expect(comparableConversation({ trials: [{ ...trial([]), turns: undefined, conversation: undefined }] })).toEqual({});
  });

  it('keeps per-case deltas and significance over cases, and adds the turns of cases that are conversations in both runs', () => {
    const kase = (name: string, score: number, turns?: TurnResult[]): ComparableCase => ({
      case_name: name,
      scores: { knowledgeRetention: score },
      avg_score: score,
      status: score >= 0.7 ? 'passed' : 'failed',
      ...(turns ? { conversation: conv(turns) } : {}),
    });
    const r = compareRuns(
      { run_id: 'b', agent_version: 'v1', cases: [kase('refund', 1, baselineTurns()), kase('greeting', 1)] },
      { run_id: 'c', agent_version: 'v2', cases: [kase('refund', 0.25, candidateTurns()), kase('greeting', 1)] },
      { threshold: 0.05 },
    );
    expect(r.regressions).toEqual([{ case_name: 'refund', scorer: 'knowledgeRetention', baseline_score: 1, candidate_score: 0.25, delta: -0.75 }]);
    expect(r.significance.n).toBe(2);
    const refund = r.cases.find((c) => c.case_name === 'refund')!;
    expect(refund).toMatchObject({ delta: -0.75, baseline_status: 'passed', candidate_status: 'failed' });
    expect(refund.conversation!.first_divergence?.turn).toBe(5);
    expect(refund.conversation!.conversation_scores).toEqual([{ scorer: 'knowledgeRetention', baseline_score: 1, candidate_score: 0.25, delta: -0.75 }]);
    expect(r.cases.find((c) => c.case_name === 'greeting')).not.toHaveProperty('conversation');
  });
});
