import { expect } from 'vitest';
import type { ScoreDetail, ToolCall } from '../../core/model/eval-case.js';
import type { RunView, TrialRecord, TurnResult } from '../../core/model/eval-run.js';
import type { RunStore } from '../../core/store/runs.js';
import { eventually } from './eventually.js';
import { caseOf } from './run-case.js';
import type { TestApi } from './server.js';
import { expectJson } from './test-service-hooks.js';
import { postSuite } from './suite-api.js';

/**
 * Two runs of one support conversation for the comparison tests (unit, API and browser): a
 * customer whose order 4417 arrived broken. The baseline agent keeps the order number to the end;
 * the candidate answers turns 1 to 4 in other words (same facts, same tools, multi-paragraph
 * markdown with a code fence, emoji and a Hebrew name) and forgets the order number at turn 5,
 * where its turn scorer fails. Turn 6 follows from there: the user repeats the number.
 */

export const ORDER = '4417';

/** The user's messages, the same in both runs (a scripted conversation). */
export const USER_TURNS = [
  `Hi! My order ${ORDER} arrived today and the kettle inside is cracked 😞`,
  'Yes, the glass is cracked along the side. Do you need photos?',
  'I uploaded two photos. How long does a refund take?',
  'Can I get the refund on my original card?\n\nIt is the Visa ending 0042.',
  'Before I go: which order is the refund for, exactly?',
  `It is ${ORDER}, as I said at the start.`,
];

const lookup: ToolCall = { name: 'lookup_order', input: { order_id: ORDER }, output: { status: 'delivered', item: 'Glass kettle 1.7 l' } };
const refund: ToolCall = { name: 'start_refund', input: { order_id: ORDER, method: 'original_card' }, output: { refund_id: 'R-88' } };

/** Baseline answers: one per user turn. */
const BASELINE = [
  `I'm sorry your kettle arrived broken! 😟\n\nI found order ${ORDER}: one *Glass kettle 1.7 l*, delivered today.\n\nCould you describe the damage?`,
  `Thank you. Photos help us file the claim with the carrier.\n\nPlease upload them here:\n\n\`\`\`\nhttps://support.example.com/claims/${ORDER}/photos\n\`\`\`\n\nThe link stays valid for 7 days.`,
  `Got both photos, thanks! 📷\n\nA refund takes **3 to 5 business days** once it is approved.\n\nApproval usually happens within 24 hours.`,
  `Yes: the refund goes back to your original card, the Visa ending 0042.\n\nI have started it now — reference R-88. שלום and thanks for your patience, דנה!`,
  `The refund is for order ${ORDER}, the Glass kettle 1.7 l.\n\nReference R-88, back to the Visa ending 0042 in 3 to 5 business days.`,
  `Exactly, order ${ORDER}. Everything is in place: reference R-88.\n\nIs there anything else I can help with? <img src=x onerror="document.title='pwned'">`,
];

/** Candidate answers: turns 1-4 say the same in other words; turn 5 has forgotten the order. */
const CANDIDATE = [
  `Oh no, I'm sorry the kettle arrived broken 😟\n\nI can see order ${ORDER} — a *Glass kettle 1.7 l* delivered today.\n\nCould you tell me what the damage looks like?`,
  `Thanks for the details. Photos help us file the carrier claim.\n\nYou can upload them here:\n\n\`\`\`\nhttps://support.example.com/claims/${ORDER}/photos\n\`\`\`\n\nThis link is valid for 7 days.`,
  `Both photos received, thank you! 📷\n\nOnce approved, a refund takes **3 to 5 business days**.\n\nApproval usually comes within 24 hours.`,
  `Yes, the refund will go back to your original card: the Visa ending 0042.\n\nIt is started now, reference R-88. שלום and thank you for your patience, דנה!`,
  `I'm sorry, I don't have that information at hand.\n\nCould you tell me the order number again so I can check?`,
  `Thank you! Order ${ORDER}: the refund, reference R-88, is on its way.\n\nIs there anything else I can help with? <img src=x onerror="document.title='pwned'">`,
];

const TOOLS: ToolCall[][] = [[lookup], [], [], [refund], [], []];

/** Turn 5 is scored by `contains` on the order number; the other turns by `contains` on a word both answers share. */
const EXPECTED_WORD = ['kettle', 'photos', 'business days', 'R-88', ORDER, 'R-88'];

function turnsOf(answers: string[]): TurnResult[] {
  return answers.map((output, i) => {
    const turn = i + 1;
    const found = output.toLowerCase().includes(EXPECTED_WORD[i].toLowerCase());
    const score = found ? 1 : 0;
    return {
      turn,
      user: USER_TURNS[i],
      output,
      tool_calls: TOOLS[i],
      usage: { input_tokens: 180 + 60 * turn, output_tokens: 40 + turn },
      latency_ms: 400 + 10 * turn,
      details: { contains: { score, reason: found ? `contains "${EXPECTED_WORD[i]}"` : `missing "${EXPECTED_WORD[i]}"`, evidence: [] } },
      avg_score: score,
      passed: found,
      approval: null,
      error: null,
      trace_id: null,
    };
  });
}

/** The baseline's six turns: every one passes. */
export const baselineTurns = (): TurnResult[] => turnsOf(BASELINE);
/** The candidate's six turns: turn 5 forgets the order number and fails its scorer. */
export const candidateTurns = (): TurnResult[] => turnsOf(CANDIDATE);

const detail = (score: number, reason: string): ScoreDetail => ({ score, reason, evidence: [] });

/** The scripted case both runs have: the six user turns, each scored by `contains`. */
const refundCase = caseOf('refund-broken-kettle', ['knowledgeRetention', 'contains'], {
  turns: USER_TURNS.map((input, i) => ({ input, expected: { outputContains: [EXPECTED_WORD[i]] } })),
});

/**
 * Two finished runs (v1, v2) of the refund conversation and of a single-turn case, recorded as
 * the run workflow records them (RunStore.recordTurn per turn, then recordTrial, then finish):
 * `execution: 'local'`, so no workflow engine is needed.
 */
export async function seedConversationRuns(runs: RunStore, projectId: string): Promise<{ baseline: string; candidate: string }> {
  const start = async (version: string, turns: TurnResult[], retention: number) => {
    const id = await runs.create({
      projectId,
      name: `support-bot ${version}`,
      agent: { id: null, name: 'support-bot' },
      execution: 'local',
      agentVersion: version,
      config: { parallel: false, timeout_ms: 60_000, repetitions: 1 },
      aggregation: 'mean',
      minScore: 0.7,
      cases: [
        refundCase,
        { name: 'greeting', input: 'Hello!', expected: { outputContains: ['hello'] }, scorers: [{ name: 'contains', config: {} }], min_score: null, weight: 1 },
      ],
    });
    const at = Date.now();
    for (const t of turns) await runs.recordTurn(id, 0, 0, t, { started_ms: at, ended_ms: at + 500, calls: [] });
    const passed = turns.every((t) => t.passed) && retention >= 0.7;
    const trial = (over: Partial<TrialRecord>): TrialRecord => ({
      status: 'passed',
      details: {},
      avg_score: 1,
      passed: true,
      duration_ms: 3200,
      latency_ms: 2600,
      output: null,
      tool_calls: null,
      usage: null,
      approval: null,
      error: null,
      trace_id: null,
      ...over,
    });
    await runs.recordTrial(
      id,
      0,
      0,
      trial({
        status: passed ? 'passed' : 'failed',
        details: { knowledgeRetention: detail(retention, retention < 1 ? `forgot the order number ${ORDER} at turn 5` : 'kept every fact') },
        avg_score: retention,
        passed,
        output: turns.at(-1)!.output,
        conversation: { ended: 'script_done', turns_done: turns.length },
      }),
      { started_ms: at, ended_ms: at + 3200, calls: [] },
    );
    await runs.recordTrial(id, 1, 0, trial({ details: { contains: detail(1, 'contains "hello"') }, output: 'Hello! How can I help?' }), {
      started_ms: at,
      ended_ms: at + 300,
      calls: [],
    });
    await runs.finish(id, 'completed');
    return id;
  };
  const baseline = await start('v1', baselineTurns(), 1);
  const candidate = await start('v2', candidateTurns(), 0.25);
  return { baseline, candidate };
}

/**
 * The conversation of the comparisons of runs the workflow executed: the user gives a name at
 * turn 1 and a city at turn 2, then asks for both back at turns 4 and 5 (each turn's `contains`).
 */
export const MEMORY_TURNS = [
  { input: 'Hello, my name is Ana.' },
  { input: 'I live in Lyon.' },
  { input: 'Nice weather today.' },
  { input: 'What is my name?', expected: { outputContains: ['Ana'] } },
  { input: 'Where do I live?', expected: { outputContains: ['Lyon'] } },
];

/**
 * One stored suite (a scripted memory conversation, judged per turn by `contains` and as a whole
 * by knowledgeRetention's rule, and a single-turn case) run twice on the real workflow against the
 * memory agent of test/helpers/conversation-agents.ts at `agentUrl`: version `v1` remembers,
 * version `forgetful-v2` sees only the last 3 messages and so forgets the name and the city from
 * turn 4 on. Returns the two finished runs.
 */
export async function runMemoryVersions(svc: TestApi, agentUrl: string): Promise<{ baseline: string; candidate: string }> {
  await expectJson(await svc.api('/api/agents', { method: 'POST', json: { name: 'memory-bot', endpoint: agentUrl } }), 201);
  const retention = {
    name: 'knowledgeRetention',
    config: {
      facts: [
        { text: 'Ana', givenInTurn: 1, forgottenIf: ['do not know your name'] },
        { text: 'Lyon', givenInTurn: 2, forgottenIf: ['do not know where you live'] },
      ],
    },
  };
  const suite = {
    name: 'memory-bot',
    agent_id: 'memory-bot',
    defaultScorers: ['contains'],
    cases: [
      { name: 'memory remembers', turns: MEMORY_TURNS, scorers: ['contains', retention] },
      { name: 'greeting', input: 'Hello!', expected: { outputContains: ['Noted'] } },
    ],
  };
  await postSuite(svc, suite);
  const run = async (version: string) => {
    const { run_id } = await expectJson<{ run_id: string }>(
      await svc.api('/api/evals/runs', { method: 'POST', json: { suite_name: 'memory-bot', agent_version: version } }),
      202,
    );
    return run_id;
  };
  const ids = { baseline: await run('v1'), candidate: await run('forgetful-v2') };
  for (const id of Object.values(ids))
    await eventually(async () => expect((await expectJson<RunView>(await svc.api(`/api/runs/${id}`))).status).toBe('completed'), 60_000);
  return ids;
}
