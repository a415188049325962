import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../core/config.js';
import { judgeCallPricer } from '../../../../core/cost/judge-pricing.js';
import { loadPriceTable } from '../../../../core/cost/price-table.js';
import type { JudgeGeneration } from '../../../../core/judges/judge.js';
import { runJudge, type JudgeCallCost } from '../../../../core/judges/run-judge.js';
import type { ConversationView } from '../../../../core/model/conversation.js';
import type { ScoreDetail } from '../../../../core/model/eval-case.js';
import { createProviders } from '../../../../core/providers/index.js';
import { defaultScorerRegistry } from '../../../../core/scoring/index.js';
import type { ScorerRegistry } from '../../../../core/scoring/scorer.js';
import { longAnswer, texts } from '../../../fixtures/corpus/texts.js';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from '../../../helpers/fake-providers.js';
import { sent } from '../../../helpers/judge-prompt.js';
import { contradictingBot, converse, forgetfulBot, loopingBot, plannerBot, scoreInput, SUPPORT_USER_TURNS } from './bots.js';

// The conversation judges through the one judge path (core/judges/run-judge.ts, as a run's judge
// activity and online rules call it) against a loopback Anthropic Messages server answered by the
// real Anthropic SDK client, with scripted verdicts: what each judge is shown of the conversation
// (its criteria, the goal or facts, the turns), the verdicts, the call records and the budget gate.

let fake: FakeProvider;
let registry: ScorerRegistry;
const priceJudgeCall = judgeCallPricer(loadPriceTable());

beforeAll(async () => {
  fake = await startFakeProvider('anthropic');
  const config = loadConfig(fakeProviderEnv({ anthropic: fake }));
  registry = defaultScorerRegistry({ judges: { providers: createProviders(config.llm), maxAnswerAttempts: 2, maxOutputTokens: 512 } });
});
afterAll(() => fake.close());

interface Judged {
  detail: ScoreDetail;
  calls: Array<{ generation: JudgeGeneration; cost: JudgeCallCost | null }>;
}

async function judge(name: string, config: Record<string, unknown>, conversation: ConversationView | undefined, stop?: string): Promise<Judged> {
  fake.requests.length = 0;
  const calls: Judged['calls'] = [];
  const detail = await runJudge(registry, { name, config }, scoreInput(conversation), {
    priceJudgeCall,
    beforeCall: stop ? () => Promise.resolve(stop) : undefined,
    onGeneration: (generation, cost) => Promise.resolve(void calls.push({ generation, cost })),
    rethrow: () => false,
  });
  return { detail, calls };
}

const supportView = (bot = forgetfulBot(2)) => converse(bot, SUPPORT_USER_TURNS, { ended: 'script_done' });

describe('goalCompletion', () => {
  it("shows the simulated user's goal and the whole conversation, and returns the verdict citing the turn", async () => {
    const view = converse(plannerBot, [texts.travelQuestion, 'Looks good.', 'Please book the flights.'], {
      ended: 'goal_met',
      goal: 'Get the family flights Lisbon–Tokyo booked, with a confirmation number.',
      persona: 'a parent planning a family trip',
      maxTurns: 8,
    });
    const verdict = {
      score: 1,
      reason: 'The flights were booked in turn 3 with confirmation LX-4471.',
      evidence: ['turn 3: Booked ✅ Confirmation **LX-4471**'],
    };
    fake.queue({ verdict, usage: { input: 2400, output: 50 }, model: 'claude-sonnet-4-6' });
    const { detail, calls } = await judge('goalCompletion', {}, view);
    expect(detail).toEqual(verdict);

    const { user } = sent(fake.requests[0], [
      'You are shown one whole conversation between a user and the agent, turn by turn ([turn n])',
      "Goal completion: did the conversation reach the user's goal?",
      'Name in your reason the turns ("turn n") that decided the score.',
      '- 0.0 to 0.5 (poor): the goal is not reached.',
      'each starting with its turn ("turn 3: ...")',
    ]);
    expect(user).toContain('<goal>\nGet the family flights Lisbon–Tokyo booked, with a confirmation number.\n</goal>');
    expect(user).toContain('<conversation>\n3 turns; the conversation ended because the simulated user said its goal was met (goal_met).\n[turn 1]\n  user:\n');
    // The user's markdown, emoji and Hebrew, every line indented under its turn.
    for (const line of texts.travelQuestion.split('\n').filter(Boolean)) expect(user).toContain(`    ${line}`);
    expect(user).toContain('  agent called 1 tool:\n    search_flights {"from":"LIS","to":"NRT","date":"2026-03-14","adults":2,"children":2}');
    expect(user).toContain(
      '[turn 3]\n  user:\n    Please book the flights.\n  agent called 1 tool:\n    book_flights {"offer_id":"of-93","passengers":4} -> {"confirmation":"LX-4471"}',
    );

    expect(calls).toHaveLength(1);
    expect(calls[0].generation).toMatchObject({ scorer: 'goalCompletion', status: 'ok', usage: { input_tokens: 2400, output_tokens: 50 } });
    expect(calls[0].cost?.cost_usd).toBeGreaterThan(0);
  });

  it('takes config.goal for a conversation without one, else asks the judge to infer it', async () => {
    await judge('goalCompletion', { goal: 'the customer learns when order #48213 arrives', criteria: 'A date is required.' }, supportView());
    const first = sent(fake.requests[0]);
    expect(first.user).toContain('<goal>\nthe customer learns when order #48213 arrives\n</goal>');
    expect(first.system).toContain('Also: A date is required.');
    await judge('goalCompletion', {}, supportView());
    expect(sent(fake.requests[0]).user).toContain("<goal>\nNo goal was given: infer the user's goal from their messages");
  });
});

describe('userFrustration', () => {
  it('shows the looping conversation and keeps the turns the judge lists as evidence', async () => {
    const verdict = {
      score: 0.1,
      reason: 'The agent asks the same question every turn; by turn 6 the user is angry.',
      evidence: ['turn 6: I ALREADY gave you my order number!! This is useless.', 'turn 5: OK, and what is the status of my order now?'],
    };
    fake.queue({ verdict });
    const view = converse(loopingBot, SUPPORT_USER_TURNS, { ended: 'gave_up', goal: 'track the order', maxTurns: 10 });
    const { detail } = await judge('userFrustration', {}, view);
    expect(detail).toEqual(verdict);
    const { user } = sent(fake.requests[0], [
      "User frustration: read the user's messages in order",
      'Evidence: one entry per turn where frustration shows',
      '- 0.9 to 1.0 (excellent): no frustration: the user stays neutral or satisfied throughout.',
    ]);
    expect(user).toContain('6 turns; the conversation ended because the simulated user gave up (gave_up).');
    expect(user.match(/Could you describe the problem in more detail\?/g)).toHaveLength(6);
    expect(user).toContain('[turn 6]\n  user:\n    I ALREADY gave you my order number!! This is useless.');
  });
});

describe('consistency', () => {
  it('shows both statements of a bot that contradicts itself', async () => {
    fake.queue({ verdict: { score: 0.2, reason: 'Turn 2 says 30 days, turn 5 says 14 days: a contradiction on the refund window.', evidence: [] } });
    const view = converse(contradictingBot, ['Hi', 'Can I return it?', 'Good', 'Thanks', 'So how long do I have?'], { ended: 'script_done' });
    const { detail } = await judge('consistency', {}, view);
    expect(detail.score).toBe(0.2);
    const { user } = sent(fake.requests[0], [
      'Consistency: the agent does not contradict itself across turns.',
      'Name each contradiction by its turns ("turn 2 vs turn 6")',
    ]);
    expect(user).toContain('[turn 2]\n  user:\n    Can I return it?\n  agent:\n    You can return it within **30 days** of delivery for a full refund.');
    expect(user).toContain('[turn 5]\n  user:\n    So how long do I have?\n  agent:\n    Refunds are only possible within **14 days** of delivery, sorry.');
  });
});

describe('knowledgeRetention, judge mode', () => {
  it("asks about the simulated user's facts, else the configured ones, else any", async () => {
    const facts = ['the order number is #48213', 'it was placed on 2 March'];
    await judge('knowledgeRetention', {}, converse(forgetfulBot(2), SUPPORT_USER_TURNS, { ended: 'max_turns', facts, goal: 'track it', maxTurns: 6 }));
    const { system, user } = sent(fake.requests[0]);
    expect(system).toContain('Knowledge retention: facts the user gave in one turn');
    expect(user).toContain('<facts>\n- the order number is #48213\n- it was placed on 2 March\n</facts>');
    expect(user).toContain(
      '[turn 5]\n  user:\n    OK, and what is the status of my order now?\n  agent:\n    Happy to help! Could you tell me your order number?',
    );

    await judge('knowledgeRetention', { mode: 'judge', facts: [{ text: 'order #48213' }] }, supportView());
    expect(sent(fake.requests[0]).user).toContain('<facts>\n- order #48213\n</facts>');
    await judge('knowledgeRetention', {}, supportView());
    expect(sent(fake.requests[0]).user).toContain('<facts>\nNo list was given: find the facts the user gave and check each.\n</facts>');
  });

  it('answers in rule mode without calling the provider', async () => {
    const { detail, calls } = await judge('knowledgeRetention', { facts: [{ text: '48213', forgottenIf: ['your order number\\?'] }] }, supportView());
    expect(detail.score).toBe(0);
    expect(detail.reason).toContain('was lost in turn 5');
    expect(fake.requests).toHaveLength(0);
    expect(calls).toHaveLength(0);
  });
});

describe('every conversation judge', () => {
  it('answers a single-turn execution with a clear 0, without a call', async () => {
    for (const name of ['goalCompletion', 'userFrustration', 'consistency', 'knowledgeRetention']) {
      const { detail } = await judge(name, {}, undefined);
      expect(detail.score, name).toBe(0);
      expect(detail.reason, name).toBe(
        `scorer error: ${name} scores a whole conversation, and this execution is a single turn: name it on a conversation case (turns or simulation) or in an online session rule`,
      );
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('stops at the budget gate before calling, as every judge', async () => {
    const { detail, calls } = await judge('consistency', {}, supportView(), 'judge budget reached: this run used 5000 of 5000 tokens');
    expect(detail).toEqual({ score: 0, reason: 'judge budget reached: this run used 5000 of 5000 tokens', evidence: [] });
    expect(fake.requests).toHaveLength(0);
    expect(calls).toHaveLength(0);
  });

  it('keeps a 60-turn conversation within maxChars: the first and last turns, and says which it left out', async () => {
    const users = Array.from({ length: 60 }, (_, i) => (i % 2 ? `question ${i + 1}: ${texts.docsQuestion}` : `question ${i + 1}: ${texts.multilingual}`));
    const view = converse((_m, turn) => ({ output: turn === 60 ? longAnswer() : texts.researchAnswer }), users, { ended: 'max_turns', maxTurns: 60 });
    await judge('userFrustration', { maxChars: 12_000 }, view);
    const shown = /<conversation>\n([\s\S]*)\n<\/conversation>/.exec(sent(fake.requests[0]).user)![1];
    expect(shown.length).toBeLessThanOrEqual(12_000);
    expect(shown).toContain('[turn 1]\n');
    expect(shown).toContain('[turn 60]\n');
    const gap = /\[… turns (\d+)-(\d+) not shown \((\d+) turns\) …\]/.exec(shown)!;
    expect(Number(gap[3])).toBe(Number(gap[2]) - Number(gap[1]) + 1);
    expect(shown).toContain(`[turn ${Number(gap[1]) - 1}]\n`);
    expect(shown).toContain(`[turn ${Number(gap[2]) + 1}]\n`);
    expect(shown).not.toContain(`[turn ${gap[1]}]\n`);
    // Each message is cut to its own cap (a sixth of maxChars), saying so: the last answer is ~600 KB.
    expect(shown).toMatch(/\[… \d+ more characters not shown\]/);
  });
});
