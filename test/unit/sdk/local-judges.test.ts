import { describe, expect, it } from 'vitest';
import type { AgentEvalClient } from '../../../sdk/client.js';
import { defineScorer, defineSuite, evaluate } from '../../../sdk/index.js';
import { memoryAgent } from '../../helpers/sdk-memory-agents.js';

/**
 * LLM judges in the SDK (docs/sdk.md "Scorers"): a suite may name any of the service's judges,
 * single-turn or conversation-level (it is valid, and the service judges it when the suite runs
 * there), but a local run never calls an LLM to score: evaluate() refuses a suite that needs a
 * judge before it creates the run or calls the agent, in the same words for a single-turn judge
 * and a conversation judge (knowledgeRetention without facts, its judge mode, included).
 * knowledgeRetention with facts is a rule and runs here.
 */

const SCRIPT = [{ input: 'Hi, my name is Ana.' }, { input: 'Nice weather today.' }, { input: 'What is my name?', expected: { outputContains: ['Ana'] } }];

const judged = (scorer: unknown, conversation: boolean) =>
  defineSuite({
    name: 'judged',
    scorers: ['contains'],
    cases: [
      conversation ? { name: 'remember', turns: SCRIPT, scorers: ['contains', scorer] } : { name: 'capital', input: 'Capital of France?', scorers: [scorer] },
    ],
  } as Parameters<typeof defineSuite>[0]);

/** A client that records whether a run was created (none may be). */
function recordingClient() {
  const created: unknown[] = [];
  const client = {
    runs: {
      createLocal: (body: unknown) => {
        created.push(body);
        return Promise.reject(new Error('no run may be created'));
      },
    },
  } as unknown as AgentEvalClient;
  return { client, created };
}

describe('LLM judges in a local run', () => {
  it('accepts a suite naming single-turn and conversation judges: the service runs it', () => {
    const suite = defineSuite({
      name: 'for the service',
      scorers: ['contains'],
      cases: [
        {
          name: 'capital',
          input: 'Capital of France?',
          expected: { output: 'Paris' },
          scorers: ['helpfulness_judge', { name: 'llmJudge', config: { criteria: 'Is it right?' } }],
        },
        { name: 'remember', turns: SCRIPT, scorers: ['goalCompletion', 'userFrustration', 'consistency', 'knowledgeRetention'] },
      ],
    });
    expect(suite.definition.cases.map((c) => c.scorers?.map((s) => s.name))).toEqual([
      ['helpfulness_judge', 'llmJudge'],
      ['goalCompletion', 'userFrustration', 'consistency', 'knowledgeRetention'],
    ]);
    // A judge's config is still checked.
    expect(() =>
      defineSuite({ name: 'bad', scorers: [{ name: 'goalCompletion', config: { temperature: 'hot' } }], cases: [{ name: 'c', turns: SCRIPT }] }),
    ).toThrow("Invalid suite file: defaultScorers[0]: scorer 'goalCompletion': config.temperature");
  });

  const cases: Array<[string, unknown, boolean]> = [
    ['helpfulness_judge', 'helpfulness_judge', false],
    ['llmJudge', { name: 'llmJudge', config: { criteria: 'Is the answer polite?' } }, false],
    ['goalCompletion', 'goalCompletion', true],
    ['userFrustration', 'userFrustration', true],
    ['consistency', 'consistency', true],
    ['knowledgeRetention', { name: 'knowledgeRetention', config: { mode: 'judge' } }, true],
  ];
  it.each(cases)('refuses %s before creating the run or calling the agent, single-turn and conversation judges alike', async (name, scorer, conversation) => {
    const { client, created } = recordingClient();
    let called = false;
    const run = evaluate(judged(scorer, conversation), {
      client,
      providerEnv: { ANTHROPIC_API_KEY: 'sk-ant-local' },
      agent: () => {
        called = true;
        return 'x';
      },
    });
    await expect(run).rejects.toThrow(
      `Evaluation run failed: case '${conversation ? 'remember' : 'capital'}' is scored by the LLM judge '${name}': LLM judges run on the service, not in a local run; run the suite there (startRun(), or agent-eval run without --local), or score it here with rule scorers (knowledgeRetention with facts)`,
    );
    expect(called).toBe(false);
    expect(created).toEqual([]);
  });

  it('runs knowledgeRetention with facts here (its rule mode), and a custom scorer that takes a judge’s name', async () => {
    const goalCompletion = defineScorer({
      name: 'goalCompletion',
      conversation: true,
      evaluate: (input) => (input.conversation?.ended === 'script_done' ? 1 : 0),
    });
    const suite = defineSuite(
      {
        name: 'rules',
        scorers: ['contains'],
        cases: [
          {
            name: 'remember',
            turns: SCRIPT,
            scorers: ['contains', { name: 'knowledgeRetention', config: { facts: [{ text: 'Ana', mustAppearAfter: 1 }] } }, goalCompletion],
          },
        ],
      },
      {},
    );
    const result = await evaluate(suite, { upload: false, agent: memoryAgent });
    expect(result.passed).toBe(true);
    expect(result.outcomes[0].details.knowledgeRetention.score).toBe(1);
    expect(result.outcomes[0].details.goalCompletion).toMatchObject({ score: 1 });
  });
});
