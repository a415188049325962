import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentCallBody, caseSessionId } from '../../core/agents/agent-body.js';
import { loadConfig } from '../../core/config.js';
import { conversationMessages, conversationViewOf, turnText } from '../../core/conversations/view.js';
import { runJudge } from '../../core/judges/run-judge.js';
import type { ConversationEnd, ConversationTurnView, ConversationView } from '../../core/model/conversation.js';
import { ExpectedSchema, type ToolCall } from '../../core/model/eval-case.js';
import { createProviders } from '../../core/providers/index.js';
import { defaultScorerRegistry, runScorers } from '../../core/scoring/index.js';
import type { ScoreInput, ScorerRegistry } from '../../core/scoring/scorer.js';
import { conversationAgent } from '../helpers/conversation-agents.js';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from '../helpers/fake-providers.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * The conversation scorers over conversations held with loopback agents with memory over HTTP
 * (test/helpers/conversation-agents.ts), each turn sent as the agent protocol sends it (the
 * history as `messages`, built by the view builder), and the judges answered by local servers
 * speaking OpenAI's and Vertex Gemini's wire protocols through the official SDK clients, with
 * scripted verdicts: a bot that forgets a fact fails knowledgeRetention where a bot with memory
 * passes; a looping bot never reaches the goal; what each judge is shown is the conversation the
 * agent had.
 */

let agent: TestAgent;
let openai: FakeProvider;
let gemini: FakeProvider;
let registry: ScorerRegistry;

beforeAll(async () => {
  agent = await startTestAgent(conversationAgent);
  openai = await startFakeProvider('openai');
  gemini = await startFakeProvider('vertex-gemini');
  const config = loadConfig(fakeProviderEnv({ openai, 'vertex-gemini': gemini }));
  registry = defaultScorerRegistry({ judges: { providers: createProviders(config.llm), maxAnswerAttempts: 2, maxOutputTokens: 512 } });
});
afterAll(() => Promise.all([agent.close(), openai.close(), gemini.close()]));

/** Plays the user's turns against the agent over HTTP, turn by turn with the history, and builds the view. */
async function converse(caseName: string, users: string[], ended: ConversationEnd, meta: { goal?: string; maxTurns?: number } = {}): Promise<ConversationView> {
  const sessionId = caseSessionId('run-conv', caseName, 0);
  const turns: ConversationTurnView[] = [];
  for (const [i, user] of users.entries()) {
    const body = {
      ...agentCallBody({ input: user, caseName, expected: {}, runId: 'run-conv', agentVersion: 'v1', traceId: '0'.repeat(32), trial: 0, sessionId }),
      turn: i + 1,
      messages: [...conversationMessages(turns), { role: 'user', content: user }],
    };
    const started = Date.now();
    const res = await fetch(agent.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answer = (await res.json()) as { output: unknown; tool_calls?: ToolCall[] };
    turns.push({
      turn: i + 1,
      user,
      assistant: turnText(answer.output),
      output: answer.output,
      toolCalls: answer.tool_calls ?? [],
      latencyMs: Date.now() - started,
    });
  }
  return conversationViewOf(turns, { sessionId, ended, ...meta });
}

const scoreInput = (conversation: ConversationView): Omit<ScoreInput, 'config'> => ({
  input: null,
  output: conversation.turns.at(-1)?.output,
  expected: ExpectedSchema.parse({}),
  toolCalls: [],
  latencyMs: 0,
  conversation,
});

const USER_TURNS = ['Hi, my name is Ana.', 'I live in Lyon.', 'Can you recommend a museum?', 'Thanks. What is my name?', 'And where do I live?'];
const NAME_FACT = { text: 'Ana', mustAppearAfter: 3, forgottenIf: ['do not know your name'] };
const CITY_FACT = { text: 'Lyon', mustAppearAfter: 4, forgottenIf: ['do not know where you live'] };

describe('conversation scorers over agents with memory', () => {
  it('a bot with memory keeps the facts; a bot that forgets after two turns loses both, at the turns they were asked', async () => {
    const remembers = await converse('memory-ana', USER_TURNS, 'script_done');
    const forgets = await converse('forgetful-ana', USER_TURNS, 'script_done');
    expect(agent.callsFor('forgetful-ana').map((r) => (r.body as unknown as { messages: unknown[] }).messages.length)).toEqual([1, 3, 5, 7, 9]);
    expect(remembers.turns.map((t) => t.assistant).slice(3)).toEqual(['Your name is Ana.', 'You live in Lyon.']);

    const refs = [
      { name: 'knowledgeRetention', config: { facts: [NAME_FACT, CITY_FACT] } },
      { name: 'turnsToGoal', config: { reachedWhen: { outputContains: ['You live in Lyon'] } } },
    ];
    const good = await runScorers(registry, refs, scoreInput(remembers));
    expect(good.knowledgeRetention).toEqual({ score: 1, reason: '2 of 2 facts given by the user retained', evidence: [] });
    expect(good.turnsToGoal.score).toBeCloseTo(1 / 5);
    expect(good.turnsToGoal.reason).toContain('the goal was reached in turn 5 of at most 5');

    const bad = await runScorers(registry, refs, scoreInput(forgets));
    expect(bad.knowledgeRetention.score).toBe(0);
    expect(bad.knowledgeRetention.reason).toBe(
      '0 of 2 facts given by the user retained: "Ana" (given in turn 1) was lost in turn 4 (the agent\'s turn matches /do not know your name/); "Lyon" (given in turn 2) was lost in turn 5 (the agent\'s turn matches /do not know where you live/)',
    );
    expect(bad.knowledgeRetention.evidence).toEqual(['turn 4: I do not know your name.', 'turn 5: I do not know where you live.']);
    expect(bad.turnsToGoal).toEqual({ score: 0, reason: 'the goal was not reached: no answer in 5 turns holds "You live in Lyon"', evidence: [] });
  });

  it("judges a looping bot's conversation through OpenAI's wire: goal not met, the user frustrated", async () => {
    const users = ['My router keeps dropping the connection.', 'It drops every 10 minutes.', 'I told you: every 10 minutes!', 'This is pointless.'];
    const view = await converse('loop-router', users, 'gave_up', { goal: 'get the router fixed', maxTurns: 6 });
    openai.queue(
      { verdict: { score: 0, reason: 'The agent never addressed the problem; the user gave up in turn 4.', evidence: ['turn 4: This is pointless.'] } },
      {
        verdict: {
          score: 0.1,
          reason: 'Frustration from turn 3, giving up in turn 4.',
          evidence: ['turn 3: I told you: every 10 minutes!', 'turn 4: This is pointless.'],
        },
      },
    );
    openai.requests.length = 0;
    const hooks = { rethrow: () => false };
    const goal = await runJudge(registry, { name: 'goalCompletion', config: { provider: 'openai' } }, scoreInput(view), hooks);
    const frustration = await runJudge(registry, { name: 'userFrustration', config: { provider: 'openai' } }, scoreInput(view), hooks);
    expect(goal).toEqual({ score: 0, reason: 'The agent never addressed the problem; the user gave up in turn 4.', evidence: ['turn 4: This is pointless.'] });
    expect(frustration.evidence).toEqual(['turn 3: I told you: every 10 minutes!', 'turn 4: This is pointless.']);

    const user = (openai.requests[0].body.messages as Array<{ content: string }>)[1].content;
    expect(user).toContain('<goal>\nget the router fixed\n</goal>');
    expect(user).toContain('4 turns; the conversation ended because the simulated user gave up (gave_up).');
    expect(user.match(/ {2}agent:\n {4}Could you say that again\?/g)).toHaveLength(4);
    const turnsToGoal = await runScorers(registry, [{ name: 'turnsToGoal', config: {} }], scoreInput(view));
    expect(turnsToGoal.turnsToGoal.score).toBe(0);
  });

  it("judges consistency and, in judge mode, knowledge retention through Vertex Gemini's wire", async () => {
    const view = await converse('tools-trip', ['Start.', 'Next.', 'Next again.'], 'script_done');
    gemini.queue(
      { verdict: { score: 1, reason: 'Each turn reports its own step; nothing contradicts.', evidence: [] } },
      { verdict: { score: 1, reason: 'No facts were given.', evidence: [] } },
    );
    gemini.requests.length = 0;
    const hooks = { rethrow: () => false };
    expect((await runJudge(registry, { name: 'consistency', config: { provider: 'vertex-gemini' } }, scoreInput(view), hooks)).score).toBe(1);
    expect((await runJudge(registry, { name: 'knowledgeRetention', config: { provider: 'vertex-gemini' } }, scoreInput(view), hooks)).score).toBe(1);
    const text = (i: number) => (gemini.requests[i].body.contents as Array<{ parts: Array<{ text: string }> }>)[0].parts[0].text;
    expect(text(0)).toContain('[turn 2]\n  user:\n    Next.\n  agent called 1 tool:\n    lookup {"turn":2}\n  agent:\n    turn 2 done');
    expect(text(1)).toContain('<facts>\nNo list was given');
  });
});
