import { describe, expect, it } from 'vitest';
import { ScorerRefListSchema } from '../../../../core/model/eval-case.js';
import { defaultScorerRegistry, runScorers } from '../../../../core/scoring/index.js';
import { turnsScore } from '../../../../core/scoring/conversation/turns-to-goal.js';
import type { ConversationView } from '../../../../core/model/conversation.js';
import { converse, forgetfulBot, loopingBot, plannerBot, scoreInput, SUPPORT_USER_TURNS } from './bots.js';

// The conversation rule scorers (turnsToGoal, turnScores, knowledgeRetention's rule mode) through
// the registry and runScorers, as a run scores a conversation once it ended: no provider needed.

const registry = defaultScorerRegistry();

async function score(name: string, config: Record<string, unknown>, conversation?: ConversationView) {
  const details = await runScorers(registry, [{ name, config }], scoreInput(conversation));
  return details[name];
}

const refusals = (name: string, config: Record<string, unknown>) => registry.check(ScorerRefListSchema.parse([{ name, config }])).map((i) => i.message);

const BOOKING_TURNS = ['We are four, Lisbon to Tokyo, 14-28 March.', 'Looks good.', 'Please book the flights.'];

describe('turnsToGoal', () => {
  it('scores a simulated user who met its goal by the turns it took against max_turns', async () => {
    const view = converse(plannerBot, BOOKING_TURNS, { ended: 'goal_met', goal: 'book the flights', maxTurns: 8 });
    const detail = await score('turnsToGoal', {}, view);
    expect(detail.score).toBeCloseTo(1 - 2 / 8);
    expect(detail.reason).toBe(
      'the goal was reached in turn 3 of at most 8 (1 or fewer score 1): 0.75; the conversation ended because the simulated user said its goal was met (goal_met)',
    );
    expect(detail.evidence[0]).toMatch(/^turn 3: Booked ✅ Confirmation \*\*LX-4471\*\*/);
    expect((await score('turnsToGoal', { targetTurns: 3 }, view)).score).toBe(1);
    expect((await score('turnsToGoal', { maxTurns: 3 }, view)).score).toBeCloseTo(1 / 3);
  });

  it('scores 0 when the user gave up, naming how it ended', async () => {
    const view = converse(loopingBot, SUPPORT_USER_TURNS, { ended: 'gave_up', goal: 'track the order', maxTurns: 10 });
    expect(await score('turnsToGoal', {}, view)).toEqual({
      score: 0,
      reason: 'the goal was not reached: the conversation ended because the simulated user gave up (gave_up), and only goal_met counts as the goal',
      evidence: [],
    });
  });

  it('finds the goal turn in the answers with reachedWhen, in a scripted conversation measured against its length', async () => {
    const view = converse(plannerBot, [...BOOKING_TURNS, 'Thanks!'], { ended: 'script_done' });
    const detail = await score('turnsToGoal', { reachedWhen: { regex: ['confirmation \\*\\*[A-Z]{2}-\\d+'] } }, view);
    expect(detail.score).toBeCloseTo(1 - 2 / 4);
    expect(detail.reason).toContain('the goal was reached in turn 3 of at most 4');
    expect(detail.reason).toContain('its answer holds /confirmation \\*\\*[A-Z]{2}-\\d+/');
    const never = await score('turnsToGoal', { reachedWhen: { outputContains: ['refund issued'] } }, view);
    expect(never).toEqual({ score: 0, reason: 'the goal was not reached: no answer in 4 turns holds "refund issued"', evidence: [] });
  });

  it('needs a maximum when the conversation has none, and a conversation', async () => {
    const session = converse(plannerBot, BOOKING_TURNS, { ended: 'idle' });
    expect((await score('turnsToGoal', { goalEnds: ['idle'] }, session)).reason).toBe(
      "scorer error: turnsToGoal needs config.maxTurns: this conversation has no simulated user's max_turns to measure against",
    );
    expect((await score('turnsToGoal', { goalEnds: ['idle'], maxTurns: 5 }, session)).score).toBeCloseTo(0.6);
    expect(await score('turnsToGoal', {}, undefined)).toEqual({
      score: 0,
      reason:
        'scorer error: turnsToGoal scores a whole conversation, and this execution is a single turn: name it on a conversation case (turns or simulation) or in an online session rule',
      evidence: [],
    });
  });

  it('goes down in even steps from the target to the maximum', () => {
    expect([1, 2, 5, 10, 11].map((n) => turnsScore(n, 1, 10))).toEqual([1, 0.9, 0.6, 0.1, 0]);
    expect(turnsScore(4, 3, 10)).toBeCloseTo(0.875);
    expect(turnsScore(3, 5, 3)).toBe(1);
  });

  it('refuses bad configs when the suite or run is created', () => {
    expect(refusals('turnsToGoal', { maxTurns: 0 })).toHaveLength(1);
    expect(refusals('turnsToGoal', { goalEnds: ['won'] })[0]).toContain("scorer 'turnsToGoal': config.goalEnds.0");
    expect(refusals('turnsToGoal', { reachedWhen: {} })).toEqual(["scorer 'turnsToGoal': config.reachedWhen needs outputContains or regex"]);
    expect(refusals('turnsToGoal', { reachedWhen: { regex: ['(a)\\1'] } })[0]).toMatch(/config\.reachedWhen\.regex\.0 .*RE2/);
  });
});

const passFail = (...scores: number[]) => scores.map((s) => ({ contains: { score: s, reason: s === 1 ? 'all found' : `missing "order"`, evidence: [] } }));

describe('turnScores', () => {
  const view = () =>
    converse(forgetfulBot(2), SUPPORT_USER_TURNS, {
      ended: 'script_done',
      scores: [
        undefined,
        ...passFail(1, 1, 1, 0),
        { contains: { score: 0.5, reason: 'half', evidence: [] }, latency: { score: 1, reason: 'fast', evidence: [] } },
      ],
    });

  it('averages the turns that have scores, naming the lowest', async () => {
    const detail = await score('turnScores', {}, view());
    expect(detail.score).toBeCloseTo((1 + 1 + 1 + 0 + 0.75) / 5);
    expect(detail.reason).toBe('mean of the turn scores 0.75 (5 of 6 turns scored); lowest turn 5 at 0');
    expect(detail.evidence[0]).toBe('turn 5: 0 (lowest: contains, missing "order")');
  });

  it('takes the min, or only the named scorers', async () => {
    expect((await score('turnScores', { aggregate: 'min' }, view())).score).toBe(0);
    expect((await score('turnScores', { scorers: ['latency'] }, view())).score).toBe(1);
  });

  it('counts the turns that reach turnMinScore, pass or fail against minPassing', async () => {
    const rate = await score('turnScores', { turnMinScore: 0.7 }, view());
    expect(rate.score).toBeCloseTo(4 / 5);
    expect(rate.reason).toBe('4 of 5 scored turns reached 0.7; short: turn 5 (0)');
    expect((await score('turnScores', { turnMinScore: 0.7, minPassing: 0.8 }, view())).score).toBe(1);
    const failed = await score('turnScores', { turnMinScore: 0.7, minPassing: 0.9 }, view());
    expect(failed.score).toBe(0);
    expect(failed.reason).toBe('4 of 5 scored turns reached 0.7 (0.8; at least 0.9 must: not met); short: turn 5 (0)');
  });

  it('says when there are no per-turn scores', async () => {
    const simulated = converse(plannerBot, BOOKING_TURNS, { ended: 'goal_met', maxTurns: 5 });
    expect((await score('turnScores', {}, simulated)).reason).toBe(
      'scorer error: turnScores found no per-turn scores in 3 turns: give the scripted turns scorers (or an expected)',
    );
    expect(refusals('turnScores', { minPassing: 0.5 })).toEqual(["scorer 'turnScores': config.minPassing needs turnMinScore: what makes a turn pass"]);
  });
});

describe('knowledgeRetention, rule mode', () => {
  const ORDER_FACT = { text: '48213', mustAppearAfter: 2, forgottenIf: ['your order number\\?'] };

  it('finds the fact a bot forgets at turn 5: asked for again', async () => {
    const view = converse(forgetfulBot(2), SUPPORT_USER_TURNS, { ended: 'script_done' });
    const detail = await score('knowledgeRetention', { facts: [ORDER_FACT] }, view);
    expect(detail.score).toBe(0);
    expect(detail.reason).toBe(
      `0 of 1 fact given by the user retained: "48213" (given in turn 2) was lost in turn 5 (the agent's turn matches /your order number\\?/)`,
    );
    expect(detail.evidence).toEqual(['turn 5: Happy to help! Could you tell me your order number?']);
  });

  it('passes a bot that keeps it, used in its answers and tool calls', async () => {
    const view = converse(forgetfulBot(10), SUPPORT_USER_TURNS, { ended: 'script_done' });
    const detail = await score('knowledgeRetention', { facts: [ORDER_FACT, { text: '2 March', forgottenIf: ['when did you (order|place)'] }] }, view);
    expect(detail).toEqual({ score: 1, reason: '2 of 2 facts given by the user retained', evidence: [] });
  });

  it('recognizes a fact by pattern, checks that it is used later, and leaves out facts never given', async () => {
    const view = converse(loopingBot, SUPPORT_USER_TURNS, { ended: 'gave_up' });
    const detail = await score(
      'knowledgeRetention',
      {
        facts: [
          { text: 'order number', pattern: '#\\d{5}', mustAppearAfter: 3 },
          { text: 'the customer is Dana', mustAppearAfter: 1 },
        ],
      },
      view,
    );
    expect(detail.score).toBe(0);
    expect(detail.reason).toBe(
      '0 of 1 fact given by the user retained: "order number" (given in turn 2) was not used by the agent after turn 3; never given by the user, not checked: "the customer is Dana"',
    );
    expect(detail.evidence).toEqual(['turn 6: Could you describe the problem in more detail?']);
    const none = await score('knowledgeRetention', { facts: [{ text: 'Dana', mustAppearAfter: 1 }] }, view);
    expect(none).toEqual({
      score: 1,
      reason: 'none of the 1 fact was given by the user, so there was nothing to retain; never given by the user, not checked: "Dana"',
      evidence: [],
    });
  });

  it('needs no provider in rule mode, and refuses a fact with nothing to check', () => {
    expect(registry.unavailable(ScorerRefListSchema.parse([{ name: 'knowledgeRetention', config: { facts: [ORDER_FACT] } }]))).toEqual([]);
    expect(registry.unavailable(ScorerRefListSchema.parse([{ name: 'knowledgeRetention', config: {} }]))[0].message).toContain('needs an LLM provider');
    expect(refusals('knowledgeRetention', { facts: [{ text: '48213' }] })).toEqual([
      "scorer 'knowledgeRetention': config.facts.0 needs mustAppearAfter or forgottenIf: what shows the fact retained or lost",
    ]);
    expect(refusals('knowledgeRetention', { mode: 'rule' })).toEqual([
      "scorer 'knowledgeRetention': config.facts the rule mode checks config.facts: give at least one",
    ]);
    expect(refusals('knowledgeRetention', { facts: [{ text: 'x', forgottenIf: ['(?=x)'] }] })[0]).toMatch(/config\.facts\.0\.forgottenIf\.0 .*RE2/);
    // The judge mode takes facts as plain texts.
    expect(refusals('knowledgeRetention', { mode: 'judge', facts: [{ text: '48213' }] })).toEqual([]);
  });

  it('marks every conversation scorer as one, and answers a single-turn execution with a clear 0', async () => {
    for (const name of ['turnsToGoal', 'turnScores', 'knowledgeRetention', 'goalCompletion', 'userFrustration', 'consistency']) {
      expect(registry.get(name)?.readsConversation, name).toBe(true);
    }
    expect(registry.get('contains')?.readsConversation).toBeUndefined();
    const detail = await score('knowledgeRetention', { facts: [ORDER_FACT] });
    expect(detail.score).toBe(0);
    expect(detail.reason).toMatch(/^scorer error: knowledgeRetention scores a whole conversation, and this execution is a single turn/);
  });
});
