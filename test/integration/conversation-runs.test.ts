import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCallBody } from '../../core/agents/agent-body.js';
import type { RunComparison } from '../../core/evals/compare.js';
import type { CaseResultView, RunView } from '../../core/model/eval-run.js';
import { runMemoryVersions } from '../helpers/compare-conversations.js';
import { callsPerTurn, conversationAgent } from '../helpers/conversation-agents.js';
import { eventually } from '../helpers/eventually.js';
import { untilRunStatus } from '../helpers/run-results.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';
import { postSuite } from '../helpers/suite-api.js';

/**
 * Scripted conversations end to end (docs/evals.md, "Conversations") on a real Temporal dev
 * server, embedded PostgreSQL and chDB, against loopback agents that answer from the history they
 * are sent (test/helpers/conversation-agents.ts): turn by turn, with per-turn and case-level
 * scores in the API, the agent's history on each turn, pause and cancel mid-conversation, two
 * agent versions of one suite compared turn by turn, and the case shapes refused with 400s.
 */

let service: TestService;
let agent: TestAgent;

beforeAll(async () => {
  agent = await startTestAgent(conversationAgent);
  service = await startTestService({ EVAL_RETRY_TIME_SCALE: '0.001' });
  await json(await service.api('/api/agents', { method: 'POST', json: { name: 'chat', endpoint: agent.url } }), 201);
});

afterAll(async () => {
  await service?.stop();
  await agent?.close();
});

const bodyOf = (r: TestAgent['requests'][number]) => r.body as unknown as AgentCallBody;

async function startRun(items: unknown[], scorers: unknown[] = ['contains']): Promise<RunView> {
  return json<RunView>(await service.api('/api/runs', { method: 'POST', json: { agentId: 'chat', dataset: { items }, scorers } }), 202);
}

const waitFor = (runId: string, statuses: string[]) => untilRunStatus<RunView>(service, runId, statuses);

const results = async (runId: string) => (await json<{ results: CaseResultView[] }>(await service.api(`/api/runs/${runId}/results`), 200)).results;

/** Tell a fact, ask about something else, then ask for the fact back (turn 4 expects it). */
const memoryScript = [
  { input: 'Hello, my name is Ana.' },
  { input: 'I live in Lyon.' },
  { input: 'Nice weather today.' },
  { input: 'What is my name?', expected: { outputContains: ['Ana'] } },
  { input: 'Where do I live?', expected: { outputContains: ['Lyon'] } },
];

describe('scripted conversations', () => {
  it('calls the agent turn by turn with the history, and scores each turn and the end', async () => {
    const run = await startRun([
      { name: 'memory', turns: memoryScript, expected: { outputContains: ['Lyon'] } },
      { name: 'forgetful', turns: memoryScript },
      { name: 'loop', turns: [{ input: 'What is my name?' }, { input: 'Hello?', expected: { outputContains: ['name'] } }] },
      { name: 'single', input: 'What is my name?', expected: { outputContains: ['know'] } },
    ]);
    const done = await waitFor(run.id, ['completed']);
    expect(done.summary).toMatchObject({ total_cases: 4, passed: 2, failed: 2 });

    const byName = Object.fromEntries((await results(run.id)).map((r) => [r.case_name, r]));
    // The agent that remembers passes every expectation: turns 4 and 5, and its last answer.
    const memory = byName.memory;
    expect(memory).toMatchObject({ status: 'passed', passed: true, scores: { contains: 1 } });
    const trial = memory.trials[0];
    expect(trial.conversation).toEqual({ ended: 'script_done', turns_done: 5 });
    expect(trial.turns!.map((t) => [t.turn, t.user, t.output, t.passed])).toEqual([
      [1, 'Hello, my name is Ana.', 'Noted.', true],
      [2, 'I live in Lyon.', 'Noted.', true],
      [3, 'Nice weather today.', 'Noted.', true],
      [4, 'What is my name?', 'Your name is Ana.', true],
      [5, 'Where do I live?', 'You live in Lyon.', true],
    ]);
    expect(trial.turns![0].details).toEqual({});
    expect(trial.turns![3].details.contains).toMatchObject({ score: 1 });
    expect(trial.turns![4]).toMatchObject({ usage: { input_tokens: 50, output_tokens: 5 }, trace_id: trial.trace_id, error: null });
    expect(trial.turns![4].latency_ms).toBeGreaterThanOrEqual(0);

    // The forgetful agent (it sees the last 3 messages) fails where planted: the name and the city were told too long ago.
    const forgetful = byName.forgetful;
    expect(forgetful).toMatchObject({ status: 'failed', passed: false });
    expect(forgetful.trials[0].turns!.map((t) => t.passed)).toEqual([true, true, true, false, false]);
    expect(forgetful.error).toMatch(/^turn 4: scorer 'contains' scored 0/);
    expect(byName.loop.error).toMatch(/^turn 2: scorer 'contains' scored 0/);
    // A single-turn case in the same run is unchanged: one call, no turns.
    expect(byName.single).toMatchObject({ status: 'passed' });
    expect(byName.single.trials[0].turns).toBeUndefined();

    // Each turn's call carried the whole history so far, the session and the turn number.
    const calls = agent.requests.filter((r) => bodyOf(r).run_id === run.id && bodyOf(r).case.name === 'memory').map(bodyOf);
    expect(calls.map((b) => b.turn)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(calls.map((b) => b.session_id)).size).toBe(1);
    expect(new Set(calls.map((b) => b.trace_id))).toEqual(new Set([trial.trace_id]));
    expect(calls[3].input).toBe('What is my name?');
    expect(calls[3].messages).toEqual([
      { role: 'user', content: 'Hello, my name is Ana.' },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'I live in Lyon.' },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'Nice weather today.' },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    expect(callsPerTurn(agent.requests, run.id, 'memory')).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1, 5: 1 });
  });

  it('puts every turn in the case trace, with tool calls in the history', async () => {
    const run = await startRun([{ name: 'tools', turns: [{ input: 'one' }, { input: 'two' }, { input: 'three' }] }], ['toolSelection']);
    await waitFor(run.id, ['completed']);
    const [tools] = await results(run.id);
    const calls = agent.requests.filter((r) => bodyOf(r).run_id === run.id).map(bodyOf);
    expect(calls[2].messages[1]).toEqual({ role: 'assistant', content: 'turn 1 done', tool_calls: [{ name: 'lookup', arguments: '{"turn":1}' }] });
    const trace = await eventually(async () => {
      const t = await json<{ spans: Array<{ name: string; input: unknown; parent_span_id: string | null; attributes: Record<string, unknown> }> }>(
        await service.api(`/api/traces/${tools.trace_id}`),
        200,
      );
      expect(t.spans.filter((s) => s.name.endsWith('agent call'))).toHaveLength(3);
      return t;
    });
    // Each turn's span shows that turn's user message; the root shows the first (the case has no input of its own).
    expect(
      trace.spans
        .filter((s) => s.name.endsWith('agent call'))
        .map((s) => [s.name, s.input])
        .sort(),
    ).toEqual([
      ['turn 1: agent call', 'one'],
      ['turn 2: agent call', 'two'],
      ['turn 3: agent call', 'three'],
    ]);
    expect(trace.spans.find((s) => s.parent_span_id === null)?.input).toBe('one');
  });

  it('pauses between turns and resumes where it was; cancel keeps the turns done', async () => {
    const slow = Array.from({ length: 8 }, (_, i) => ({ input: `message ${i + 1}` }));
    const run = await startRun([{ name: 'memory slow', turns: slow, expected: { outputContains: ['Noted'] } }]);
    await eventually(() => Promise.resolve(expect(callsPerTurn(agent.requests, run.id, 'memory slow')[2]).toBe(1)), 30_000);
    await json(await service.api(`/api/runs/${run.id}/control`, { method: 'POST', json: { action: 'pause' } }), 202);
    await waitFor(run.id, ['paused']);
    // The turns done so far show while it is paused; the turn in flight waits to be scored, and no next turn starts.
    const [paused] = await results(run.id);
    expect(paused.running?.[0].turns.length).toBeGreaterThanOrEqual(1);
    const called = Object.keys(callsPerTurn(agent.requests, run.id, 'memory slow')).length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(Object.keys(callsPerTurn(agent.requests, run.id, 'memory slow')).length).toBe(called);
    expect(called).toBeLessThan(8);
    await json(await service.api(`/api/runs/${run.id}/control`, { method: 'POST', json: { action: 'resume' } }), 202);
    await waitFor(run.id, ['completed']);
    const [c] = await results(run.id);
    expect(c.status).toBe('passed');
    expect(callsPerTurn(agent.requests, run.id, 'memory slow')).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1 });

    const cancelled = await startRun([{ name: 'memory slow cancel', turns: slow, expected: { outputContains: ['Noted'] } }]);
    await eventually(() => Promise.resolve(expect(callsPerTurn(agent.requests, cancelled.id, 'memory slow cancel')[3]).toBe(1)), 30_000);
    await json(await service.api(`/api/runs/${cancelled.id}/control`, { method: 'POST', json: { action: 'cancel' } }), 202);
    await waitFor(cancelled.id, ['cancelled']);
    const [gone] = await eventually(async () => {
      const r = await results(cancelled.id);
      expect(r[0].status).toBe('cancelled');
      return r;
    });
    const turns = gone.trials[0].turns!;
    expect(turns.length).toBeGreaterThanOrEqual(2);
    expect(turns.length).toBeLessThan(8);
    expect(gone.trials[0].conversation).toMatchObject({ ended: null });
  });
});

describe('comparing two agent versions the workflow ran', () => {
  it('answers per-turn deltas and the first diverging turn where the new version forgot the name', async () => {
    const ids = await runMemoryVersions(service, agent.url);
    const r = await json<RunComparison>(
      await service.api('/api/compare', { method: 'POST', json: { baseline_run_id: ids.baseline, candidate_run_id: ids.candidate, threshold: 0.05 } }),
      200,
    );
    expect(r.passed).toBe(false);
    expect(r.regressions).toContainEqual({ case_name: 'memory remembers', scorer: 'knowledgeRetention', baseline_score: 1, candidate_score: 0, delta: -1 });
    // The single-turn case in the same suite compares as before, with no conversation.
    const greeting = r.cases.find((c) => c.case_name === 'greeting')!;
    expect(greeting).toMatchObject({ baseline_status: 'passed', candidate_status: 'passed' });
    expect(greeting).not.toHaveProperty('conversation');

    const memory = r.cases.find((c) => c.case_name === 'memory remembers')!;
    expect(memory).toMatchObject({ baseline_status: 'passed', candidate_status: 'failed' });
    const conv = memory.conversation!;
    // Both conversations as the workflow recorded them: five turns each, the script done, one trace per trial.
    expect(conv.baseline).toMatchObject({ trial: 0, turn_count: 5, ended: 'script_done' });
    expect(conv.baseline.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(conv.candidate).toMatchObject({ trial: 0, turn_count: 5, ended: 'script_done' });
    expect(conv.first_divergence).toEqual({ turn: 4, reasons: ['pass_fail', 'answer_text'] });
    expect(conv.conversation_scores).toContainEqual({ scorer: 'knowledgeRetention', baseline_score: 1, candidate_score: 0, delta: -1 });
    expect(conv.turns.map((t) => [t.turn, t.delta, t.divergence])).toEqual([
      [1, null, []],
      [2, null, []],
      [3, null, []],
      [4, -1, ['pass_fail', 'answer_text']],
      [5, -1, ['pass_fail', 'answer_text']],
    ]);
    const four = conv.turns[3];
    expect(four.scores).toEqual([{ scorer: 'contains', baseline_score: 1, candidate_score: 0, delta: -1 }]);
    expect(four.baseline).toMatchObject({ user: 'What is my name?', output: 'Your name is Ana.', passed: true, error: null });
    expect(four.candidate).toMatchObject({ user: 'What is my name?', output: 'I do not know your name.', passed: false, error: null });
    expect(conv.turns[0].answer_similarity).toBe(1);
    // Each version was called once per turn, with its own version.
    for (const [id, version] of [
      [ids.baseline, 'v1'],
      [ids.candidate, 'forgetful-v2'],
    ]) {
      expect(callsPerTurn(agent.requests, id, 'memory remembers')).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1, 5: 1 });
      expect(new Set(agent.requests.filter((q) => bodyOf(q).run_id === id).map((q) => bodyOf(q).agent_version))).toEqual(new Set([version]));
    }
    // The evals family answers the same.
    const evals = await json<RunComparison>(
      await service.api('/api/evals/compare', { method: 'POST', json: { baseline_run_id: ids.baseline, candidate_run_id: ids.candidate, threshold: 0.05 } }),
      200,
    );
    expect(evals).toEqual(r);
  });
});

describe('approval mid-conversation', () => {
  it('waits for a person on the turn that asks, then goes on with the same history', async () => {
    const run = await startRun([
      {
        name: 'approve pay',
        turns: [{ input: 'My name is Ana.' }, { input: 'Please pay the invoice.', expected: { outputContains: ['Paid'] } }, { input: 'What is my name?' }],
        expected: { outputContains: ['Ana'] },
      },
    ]);
    const waiting = await eventually(async () => {
      const a = await json<{ approvals: Array<{ case_index: number; trial: number; tool: string }> }>(await service.api(`/api/runs/${run.id}/approvals`), 200);
      expect(a.approvals).toHaveLength(1);
      return a.approvals[0];
    }, 30_000);
    expect(waiting).toMatchObject({ case_index: 0, trial: 0, tool: 'payments' });
    await json(await service.api(`/api/runs/${run.id}/cases/0/approval`, { method: 'POST', json: { approved: true, comment: 'ok' } }), 202);
    await waitFor(run.id, ['completed']);
    const [c] = await results(run.id);
    expect(c.status).toBe('passed');
    const turns = c.trials[0].turns!;
    expect(turns.map((t) => t.output)).toEqual(['Noted.', 'Paid.', 'Your name is Ana.']);
    expect(turns[1].approval).toMatchObject({ tool: 'payments', approved: true, comment: 'ok' });
    const calls = agent.requests.filter((r) => bodyOf(r).run_id === run.id).map(bodyOf);
    expect(calls.map((b) => b.turn)).toEqual([1, 2, 2, 3]);
    expect(calls[2].approval).toEqual({ approved: true, comment: 'ok' });
    expect(calls[2].messages).toEqual(calls[1].messages);
  });
});

describe('case shapes', () => {
  const post = (items: unknown[], scorers: unknown[] = ['contains']) =>
    service.api('/api/runs', { method: 'POST', json: { agentId: 'chat', dataset: { items }, scorers } });

  it('refuses a case with two shapes with a 400 naming it', async () => {
    const res = await post([
      { name: 'ok', input: 'x' },
      { name: 'both', input: 'x', turns: [{ input: 'y' }] },
    ]);
    expect(await json<{ error: string; code: string }>(res, 400)).toMatchObject({
      error:
        'dataset.items[1]: give exactly one of input (a single call), turns (a scripted conversation) or simulation (a simulated user); this case gives input and turns',
      code: 'CASE_SHAPE',
    });
    const three = await post([{ name: 'all', input: 'x', turns: [{ input: 'y' }], simulation: { persona: 'p', goal: 'g', max_turns: 2 } }]);
    expect((await json<{ error: string }>(three, 400)).error).toMatch(/this case gives input and turns and simulation$/);
    const suite = await service.api('/api/suites', {
      method: 'POST',
      json: { name: 'shapes', defaultScorers: ['contains'], cases: [{ name: 'a', turns: [{ input: 1 }], simulation: {} }] },
    });
    expect((await json<{ error: string }>(suite, 400)).error).toMatch(/^cases\[0\]: give exactly one of input/);
  });

  it('names each problem of a conversation case (422)', async () => {
    const res = await post([
      { name: 'none' },
      { name: 'empty', turns: [] },
      { name: 'turnless', turns: [{ expected: { outputContains: ['a'] } }] },
      { name: 'bad scorer', turns: [{ input: 'a', scorers: ['nope'] }] },
      { name: 'sim', simulation: { persona: 'p', goal: 'g', max_turns: 0 } },
    ]);
    const body = await json<{ details: Array<{ field: string; message: string }> }>(res, 422);
    const byField = Object.fromEntries(body.details.map((d) => [d.field, d.message]));
    expect(byField).toMatchObject({
      'dataset.items[0].input': 'is required',
      'dataset.items[1].turns': 'a scripted conversation needs at least one turn',
      'dataset.items[2].turns[0].input': 'is required',
    });
    expect(byField['dataset.items[4].simulation.max_turns']).toBeDefined();
    const unknown = await post([{ name: 'bad scorer', turns: [{ input: 'a', scorers: ['nope'] }] }]);
    const issues = (await json<{ details: Array<{ field: string; message: string }> }>(unknown, 422)).details;
    expect(issues[0].field).toBe('dataset.items[0].turns[0].scorers[0]');
  });

  it('stores conversation cases in suites and runs them from a suite', async () => {
    const created = await postSuite<{ id: string }>(service, {
      name: 'chat-suite',
      agent_id: 'chat',
      defaultScorers: ['contains'],
      cases: [{ name: 'memory suite', turns: memoryScript.slice(0, 4) }],
    });
    const suite = await json<{ definition: { cases: Array<{ turns: unknown[] }> } }>(await service.api(`/api/suites/${created.id}`), 200);
    expect(suite.definition.cases[0].turns).toHaveLength(4);
    const run = await json<{ run_id: string }>(
      await service.api('/api/evals/runs', { method: 'POST', json: { suite_name: 'chat-suite', agent_version: 'v2' } }),
      202,
    );
    await waitFor(run.run_id, ['completed']);
    const [c] = await results(run.run_id);
    expect(c).toMatchObject({ status: 'passed' });
    expect(c.trials[0].turns!.map((t) => t.output)).toEqual(['Noted.', 'Noted.', 'Noted.', 'Your name is Ana.']);
  });

  it('fails a simulated case clearly when no LLM provider can play the user', async () => {
    const run = await startRun([{ name: 'sim', simulation: { persona: 'Dana', goal: 'a refund', max_turns: 3 }, expected: { outputContains: ['refund'] } }]);
    await waitFor(run.id, ['completed']);
    const [c] = await results(run.id);
    expect(c.status).toBe('failed');
    expect(c.error).toMatch(/simulated user needs an LLM provider/);
  });
});
