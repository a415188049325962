import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCallBody } from '../../core/agents/agent-body.js';
import type { SessionDetail } from '../../core/model/trace-session.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type AgentRequest, type TestAgent } from '../helpers/test-agent.js';
import { eventually } from '../helpers/eventually.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { untilRunStatus } from '../helpers/run-results.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';
import { postSuite } from '../helpers/suite-api.js';

/**
 * Evaluation runs end to end on a real Temporal dev server (started by the service through
 * scripts/temporal.sh), embedded PostgreSQL and chDB, with an HTTP agent served by the test.
 */

interface RunBody {
  id: string;
  run_id: string;
  status: string;
  suite_version: number | null;
  summary: { total_cases: number; passed: number; failed: number; cancelled: number; avg_score: number; scores_by_scorer: Record<string, number> };
  progress: { completed: number; total: number };
}
interface CaseResult {
  case_name: string;
  status: string;
  scores: Record<string, number>;
  details: Record<string, { score: number; reason: string; evidence: string[] }>;
  passed: boolean;
  error?: string;
  trace_id: string | null;
  output: unknown;
  trials: unknown[];
}

/** The agent: answers `input.answer`, calls `input.tools`; `input.fail` answers 500; `input.delay_ms` waits. */
function agentBehaviour(req: AgentRequest) {
  const input = req.body.input as { answer?: string; tools?: string[]; fail?: boolean; delay_ms?: number; approval?: string; bad?: boolean; weird?: boolean };
  if (input.weird) return { json: { output: { 'text\u0000': 'ok \u0000 \ud800 done' }, tool_calls: ['t\u0000'] } };
  if (input.fail) return { status: 500, json: { error: 'agent crashed' } };
  if (input.bad) return { raw: 'not json at all' };
  if (input.approval && !req.body.approval) return { json: { output: 'waiting', approval: { tool: input.approval, reason: 'sends email' } } };
  const answer = {
    json: {
      output: input.answer ?? '',
      tool_calls: input.tools ?? [],
      usage: { input_tokens: 10, output_tokens: 5 },
      // The agent reports its own spans; the case trace hangs them under the agent call.
      spans: (input.tools ?? []).map((tool) => ({ name: `tool: ${tool}`, type: 'tool', attributes: { tool_name: tool } })),
    },
  };
  if (input.delay_ms) return new Promise<typeof answer>((r) => setTimeout(() => r(answer), input.delay_ms));
  return answer;
}

/** The body the agent got, with the conversation fields the helper's type does not name. */
const callBody = (req: AgentRequest) => req.body as unknown as AgentCallBody;

let service: TestService;
let agent: TestAgent;
let agentId: string;

const waitForStatus = (runId: string, statuses: string[]) => untilRunStatus<RunBody>(service, runId, statuses);

async function results(runId: string, failedOnly = false): Promise<CaseResult[]> {
  return (await json<{ results: CaseResult[] }>(await service.api(`/api/evals/runs/${runId}/results${failedOnly ? '?failed_only=true' : ''}`), 200)).results;
}

async function startRun(items: Array<{ name: string; input: unknown; expected?: unknown }>, extra: Record<string, unknown> = {}): Promise<RunBody> {
  return json<RunBody>(await service.api('/api/runs', { method: 'POST', json: { agentId, dataset: { items }, scorers: ['contains'], ...extra } }), 202);
}

beforeAll(async () => {
  agent = await startTestAgent(agentBehaviour);
  service = await startTestService({ EVAL_RETRY_TIME_SCALE: '0.001', EVAL_APPROVAL_MAX_MS: '60000' });
  const created = await json<{ id: string }>(
    await service.api('/api/agents', { method: 'POST', json: { name: 'test-agent', endpoint: agent.url, headers: { authorization: 'Bearer agent-secret' } } }),
    201,
  );
  agentId = created.id;
});

afterAll(async () => {
  await service?.stop();
  await agent?.close();
});

describe('a suite run through the first family', () => {
  it('runs every case on the agent, scores it, and summarizes the run', async () => {
    await postSuite(service, {
      name: 'weather',
      agent_id: 'test-agent',
      defaultScorers: ['contains', 'toolSelection'],
      defaultMinScore: 0.7,
      cases: [
        { name: 'paris', input: { answer: 'It is sunny in Paris', tools: ['weather'] }, expected: { outputContains: ['sunny'], toolCalls: ['weather'] } },
        { name: 'rome', input: { answer: 'Rain in Rome', tools: ['weather'] }, expected: { outputContains: ['rain'], toolCalls: ['weather'] } },
        { name: 'oslo', input: { answer: 'I do not know', tools: [] }, expected: { outputContains: ['snow'], toolCalls: ['weather'] } },
      ],
    });
    const created = await json<{ run_id: string; status: string; suite_name: string; created_at: string }>(
      await service.api('/api/evals/runs', {
        method: 'POST',
        json: { suite_name: 'weather', agent_version: 'v1', config: { parallel: true, timeout_ms: 10_000 } },
      }),
      202,
    );
    expect(created).toMatchObject({ status: 'pending', suite_name: 'weather' });
    expect(Date.parse(created.created_at)).not.toBeNaN();

    const run = await waitForStatus(created.run_id, ['completed']);
    expect(run.suite_version).toBe(1);
    expect(run.summary).toMatchObject({ total_cases: 3, passed: 2, failed: 1 });
    expect(run.summary.scores_by_scorer.contains).toBeCloseTo(2 / 3, 5);
    const first = await json<{ completed_at: string | null; summary: { duration_ms: number } }>(await service.api(`/api/evals/runs/${created.run_id}`), 200);
    expect(first.completed_at).not.toBeNull();

    const failed = await results(created.run_id, true);
    expect(failed.map((r) => r.case_name)).toEqual(['oslo']);
    expect(failed[0].details.contains).toMatchObject({ score: 0 });
    expect(failed[0].details.toolSelection.reason).toMatch(/weather/);

    // Every call carried the case's trace context and the agent's own headers.
    const paris = agent.callsFor('paris', created.run_id);
    expect(paris).toHaveLength(1);
    expect(paris[0].headers.authorization).toBe('Bearer agent-secret');
    expect(paris[0].traceparent).toMatch(new RegExp(`^00-${paris[0].body.trace_id}-[0-9a-f]{16}-01$`));
    // The conversation fields (issue 30): a stable session per trial, turn 1, the input as one user message.
    const body = callBody(paris[0]);
    expect(body.session_id).toMatch(/^[0-9a-f]{32}$/);
    expect(body.turn).toBe(1);
    expect(body.messages).toEqual([{ role: 'user', content: JSON.stringify(body.input) }]);
    expect(body.input).toEqual({ answer: 'It is sunny in Paris', tools: ['weather'] });
    const sessions = new Set(['paris', 'rome', 'oslo'].map((name) => callBody(agent.callsFor(name, created.run_id)[0]).session_id));
    expect(sessions.size).toBe(3);
  });

  it('leaves a trace per case with the agent call, the scorer spans and the scores', async () => {
    const [run] = (await json<{ runs: RunBody[] }>(await service.api('/api/runs?suite_name=weather'), 200)).runs;
    const paris = (await results(run.id)).find((r) => r.case_name === 'paris')!;
    const trace = await eventually(async () =>
      json<{ name: string; spans: Array<{ name: string; parent_span_id: string | null }> }>(await service.api(`/api/traces/${paris.trace_id}`), 200),
    );
    expect(trace.name).toBe('eval: paris');
    const names = trace.spans.map((s) => s.name).sort();
    expect(names).toEqual(['agent call', 'eval case: paris', 'score: contains', 'score: toolSelection', 'tool: weather']);
    const byName = Object.fromEntries(trace.spans.map((s) => [s.name, s as { span_id?: string; parent_span_id: string | null }]));
    expect(byName['tool: weather'].parent_span_id).toBe(byName['agent call'].span_id);
    // The case trace is the one turn of the session the agent was told (issue 30).
    const sessionId = callBody(agent.callsFor('paris', run.id)[0]).session_id;
    const session = await eventually(async () => json<SessionDetail>(await service.api(`/api/sessions/${sessionId}`), 200));
    expect(session.traces.map((t) => t.trace_id)).toEqual([paris.trace_id]);
    const scores = (
      await json<{ scores: Array<{ name: string; value: number; source: string }> }>(await service.api(`/api/scores?trace_id=${paris.trace_id}`), 200)
    ).scores;
    expect(
      scores
        .filter((s) => s.source === 'eval')
        .map((s) => s.name)
        .sort(),
    ).toEqual(['contains', 'toolSelection']);
    expect(scores.find((s) => s.source === 'temporal')).toMatchObject({ name: 'avg_score', value: 1 });
  });
});

describe('the second family', () => {
  it('answers the SPEC 400s for missing fields', async () => {
    const cases: Array<[unknown, string]> = [
      [{ dataset: { items: [{ input: 'x' }] }, scorers: ['contains'] }, 'agentId is required'],
      [{ agentId, dataset: { items: [] }, scorers: ['contains'] }, 'dataset.items is required and must not be empty'],
      [{ agentId, dataset: { items: [{ input: 'x' }] }, scorers: [] }, 'scorers is required and must not be empty'],
    ];
    for (const [body, message] of cases) {
      const res = await service.api('/api/runs', { method: 'POST', json: body });
      expect(await json<{ error: string }>(res, 400)).toMatchObject({ error: message });
    }
    const unknownScorer = await service.api('/api/runs', { method: 'POST', json: { agentId, dataset: { items: [{ input: 'x' }] }, scorers: ['nope'] } });
    expect(unknownScorer.status).toBe(422);
    const unknownAgent = await service.api('/api/runs', {
      method: 'POST',
      json: { agentId: 'ghost', dataset: { items: [{ input: 'x' }] }, scorers: ['contains'] },
    });
    expect(await json<{ error: string }>(unknownAgent, 400)).toMatchObject({ error: 'Agent not found: ghost' });
    const control = await service.api('/api/runs/00000000-0000-4000-8000-000000000000/control', { method: 'POST', json: { action: 'explode' } });
    expect(await json<{ error: string }>(control, 400)).toMatchObject({ error: 'Invalid action (must be one of pause, resume, cancel)' });
    expect(await json<{ error: string }>(await service.api('/api/runs/nope'), 404)).toMatchObject({ error: 'Eval run not found' });
  });

  it('records a failing agent as a failed case with the error, and a throwing scorer as 0 with its reason', async () => {
    const run = await startRun(
      [
        { name: 'good', input: { answer: 'hello world' }, expected: { outputContains: ['hello'] } },
        { name: 'crashes', input: { fail: true }, expected: { outputContains: ['x'] } },
        { name: 'no-expectation', input: { answer: 'hi' } },
        { name: 'garbage', input: { bad: true }, expected: { outputContains: ['x'] } },
      ],
      { scorers: ['contains', { name: 'latency', config: { maxMs: 60_000 } }], config: { parallel: true } },
    );
    await waitForStatus(run.id, ['completed']);
    const byName = Object.fromEntries((await results(run.id)).map((r) => [r.case_name, r]));
    expect(byName.good).toMatchObject({ status: 'passed', passed: true });
    expect(byName.crashes).toMatchObject({ status: 'failed', passed: false });
    expect(byName.crashes.error).toMatch(/agent answered 500/);
    // SPEC: agent execution is retried 5 times (6 attempts), then the case fails and the run goes on.
    expect(agent.callsFor('crashes', run.id)).toHaveLength(6);
    // A 2xx answer that is not an agent reply is not retried.
    expect(agent.callsFor('garbage', run.id)).toHaveLength(1);
    expect(byName.garbage.error).toMatch(/not JSON/);
    expect(byName['no-expectation'].details.contains).toMatchObject({ score: 0 });
    expect(byName['no-expectation'].details.contains.reason).toMatch(/scorer error/);
    expect(byName['no-expectation'].details.latency.score).toBe(1);
    const status = await json<{ status: string; progress: { completed: number; total: number } }>(await service.api(`/api/runs/${run.id}/status`), 200);
    expect(status).toMatchObject({ status: 'completed', progress: { completed: 4, total: 4 } });
  });

  it('stores an agent answer holding NUL and lone surrogates (made storable), and completes the run', async () => {
    const run = await startRun([{ name: 'weird', input: { weird: true }, expected: { outputContains: ['done'] } }]);
    const done = await waitForStatus(run.id, ['completed']);
    expect(done.summary).toMatchObject({ total_cases: 1, passed: 1 });
    const [only] = await results(run.id);
    expect(JSON.stringify(only.output)).toBe(JSON.stringify({ 'text\uFFFD': 'ok \uFFFD \uFFFD done' }));
  });

  it('keeps a scored case when the metadata store refuses to record it: scoreCase, then the workflow, record it', async () => {
    // The store refuses the next three result inserts the way an overloaded PostgreSQL does
    // (53300 too_many_connections): the agent call's in-place record, scoreCase's record, and
    // the workflow's first recordCaseResult attempt. The fourth attempt is stored.
    const metadata = openServiceMetadata(service.dataDir);
    const sql = metadata.pool;
    await sql.query(`CREATE SEQUENCE test_refused_inserts;
      CREATE FUNCTION test_refuse_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('test_refused_inserts') <= 3 THEN RAISE EXCEPTION 'sorry, too many clients already' USING ERRCODE = '53300'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_refuse_inserts BEFORE INSERT ON eval_case_results FOR EACH ROW EXECUTE FUNCTION test_refuse_inserts();`);
    try {
      const run = await startRun([{ name: 'refused', input: { answer: 'stored at last' }, expected: { outputContains: ['stored'] } }]);
      const done = await waitForStatus(run.id, ['completed']);
      expect(done.summary).toMatchObject({ total_cases: 1, passed: 1, failed: 0 });
      const [result] = await results(run.id);
      expect(result).toMatchObject({ status: 'passed', output: 'stored at last', scores: { contains: 1 } });
      const { rows } = await sql.query<{ last_value: string }>('SELECT last_value FROM test_refused_inserts');
      expect(Number(rows[0].last_value)).toBe(4);
    } finally {
      await sql.query('DROP TRIGGER test_refuse_inserts ON eval_case_results; DROP FUNCTION test_refuse_inserts(); DROP SEQUENCE test_refused_inserts;');
      await sql.end();
    }
  });

  it('repeats each case and keeps every trial', async () => {
    const run = await startRun([{ name: 'twice', input: { answer: 'yes' }, expected: { outputContains: ['yes'] } }], { config: { repetitions: 3 } });
    await waitForStatus(run.id, ['completed']);
    const [only] = await results(run.id);
    expect(only.trials).toHaveLength(3);
    expect(only.status).toBe('passed');
    expect(
      agent
        .callsFor('twice', run.id)
        .map((r) => r.body.trial)
        .sort(),
    ).toEqual([0, 1, 2]);
  });
});

describe('control', () => {
  it('pauses (no progress), resumes and completes', async () => {
    const items = Array.from({ length: 6 }, (_, i) => ({ name: `slow-${i}`, input: { answer: 'ok', delay_ms: 300 }, expected: { outputContains: ['ok'] } }));
    const run = await startRun(items);
    await eventually(async () =>
      expect((await json<RunBody>(await service.api(`/api/runs/${run.id}/status`), 200)).progress.completed).toBeGreaterThanOrEqual(1),
    );
    expect(await json(await service.api(`/api/runs/${run.id}/control`, { method: 'POST', json: { action: 'pause' } }), 202)).toMatchObject({
      action: 'pause',
      status: 'paused',
    });
    await waitForStatus(run.id, ['paused']);
    // The case in flight may finish; after that nothing moves.
    await new Promise((r) => setTimeout(r, 700));
    const before = (await json<RunBody>(await service.api(`/api/runs/${run.id}/status`), 200)).progress.completed;
    await new Promise((r) => setTimeout(r, 1500));
    const after = (await json<RunBody>(await service.api(`/api/runs/${run.id}/status`), 200)).progress.completed;
    expect(after).toBe(before);
    expect(before).toBeLessThan(6);
    // The traces of the recorded cases are written while the run is paused (a partial batch
    // waits at most a second), not held back until it finishes.
    const recorded = (await results(run.id)).filter((r) => r.status === 'passed');
    expect(recorded.length).toBe(before);
    for (const r of recorded) expect((await service.api(`/api/traces/${r.trace_id}`)).status, r.case_name).toBe(200);
    await json(await service.api(`/api/runs/${run.id}/control`, { method: 'POST', json: { action: 'resume' } }), 202);
    const done = await waitForStatus(run.id, ['completed']);
    expect(done.summary).toMatchObject({ total_cases: 6, passed: 6 });
    // The pause reached the case whose agent call was in flight; that case was not called twice.
    for (const item of items) expect(agent.callsFor(item.name, run.id), item.name).toHaveLength(1);
  });

  it('cancels: pending cases become cancelled and the run cannot be resumed', async () => {
    const items = Array.from({ length: 8 }, (_, i) => ({ name: `c-${i}`, input: { answer: 'ok', delay_ms: 400 }, expected: { outputContains: ['ok'] } }));
    const run = await startRun(items);
    await eventually(async () =>
      expect((await json<RunBody>(await service.api(`/api/runs/${run.id}/status`), 200)).progress.completed).toBeGreaterThanOrEqual(1),
    );
    await json(await service.api(`/api/runs/${run.id}/control`, { method: 'POST', json: { action: 'cancel' } }), 202);
    const cancelled = await waitForStatus(run.id, ['cancelled']);
    expect(cancelled.summary.cancelled).toBeGreaterThan(0);
    expect(cancelled.summary.passed + cancelled.summary.cancelled + cancelled.summary.failed).toBe(8);
    const statuses = (await results(run.id)).map((r) => r.status);
    expect(statuses.filter((s) => s === 'cancelled').length).toBe(cancelled.summary.cancelled);
    expect(statuses).not.toContain('pending');
    const resume = await service.api(`/api/runs/${run.id}/control`, { method: 'POST', json: { action: 'resume' } });
    expect(resume.status).toBe(409);
  });

  it('holds a case that asks for approval until approvalSignal, then goes on', async () => {
    const run = await startRun(
      [
        { name: 'needs-ok', input: { answer: 'email sent', approval: 'send_email' }, expected: { outputContains: ['sent'] } },
        { name: 'denied', input: { answer: 'email sent', approval: 'send_email' }, expected: { outputContains: ['sent'] } },
      ],
      { config: { parallel: true } },
    );
    await eventually(() => expect(agent.callsFor('needs-ok', run.id)).toHaveLength(1));
    await eventually(() => expect(agent.callsFor('denied', run.id)).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 500));
    expect((await json<RunBody>(await service.api(`/api/runs/${run.id}`), 200)).status).toBe('running');
    await json(await service.api(`/api/runs/${run.id}/cases/0/approval`, { method: 'POST', json: { approved: true, comment: 'fine' } }), 202);
    await json(await service.api(`/api/runs/${run.id}/cases/1/approval`, { method: 'POST', json: { approved: false, comment: 'no emails' } }), 202);
    await waitForStatus(run.id, ['completed']);
    const byName = Object.fromEntries((await results(run.id)).map((r) => [r.case_name, r]));
    expect(byName['needs-ok']).toMatchObject({ status: 'passed' });
    const calls = agent.callsFor('needs-ok', run.id);
    expect(calls).toHaveLength(2);
    expect(calls[1].body.approval).toMatchObject({ approved: true, comment: 'fine' });
    expect(byName.denied).toMatchObject({ status: 'failed' });
    expect(byName.denied.error).toMatch(/denied: no emails/);
  });
});

describe('comparison', () => {
  const items = Array.from({ length: 12 }, (_, i) => ({
    name: `q${i}`,
    input: { answer: `the answer is ${i}`, tools: ['search'] },
    expected: { outputContains: ['answer', `${i}`], toolCalls: ['search'] },
  }));

  it('finds a planted regression and calls it significant; a rerun of the same agent is not', async () => {
    const scorers = ['contains', 'toolSelection'];
    const base = await startRun(items, { scorers, agentVersion: 'v1', config: { parallel: true } });
    const same = await startRun(items, { scorers, agentVersion: 'v1-again', config: { parallel: true } });
    // The regressed agent forgets the tool on every case.
    const worse = await startRun(
      items.map((it) => ({ ...it, input: { ...it.input, tools: [] } })),
      { scorers, agentVersion: 'v2', config: { parallel: true } },
    );
    for (const r of [base, same, worse]) await waitForStatus(r.id, ['completed']);

    const regression = await json<{
      passed: boolean;
      overall_delta: number;
      regressions: Array<{ case_name: string; scorer: string; delta: number }>;
      significance: { significant: boolean; p_value: number; method: string; ci95: [number, number] };
      baseline: { run_id: string; agent_version: string };
    }>(await service.api('/api/compare', { method: 'POST', json: { baseline_run_id: base.id, candidate_run_id: worse.id, threshold: 0.05 } }), 200);
    expect(regression.passed).toBe(false);
    expect(regression.baseline).toEqual({ run_id: base.id, agent_version: 'v1' });
    expect(regression.regressions).toHaveLength(12);
    expect(regression.regressions.every((r) => r.scorer === 'toolSelection')).toBe(true);
    expect(regression.overall_delta).toBeCloseTo(-0.5, 5);
    expect(regression.significance.significant).toBe(true);
    expect(regression.significance.p_value).toBeLessThan(0.01);
    expect(regression.significance.ci95[1]).toBeLessThan(0);

    const rerun = await json<{ passed: boolean; regressions: unknown[]; significance: { significant: boolean } }>(
      await service.api('/api/evals/compare', { method: 'POST', json: { baseline_run_id: base.id, candidate_run_id: same.id, threshold: 0.05 } }),
      200,
    );
    expect(rerun).toMatchObject({ passed: true, regressions: [], significance: { significant: false } });
  });

  it('answers the SPEC messages for bad comparison requests', async () => {
    const id = '00000000-0000-4000-8000-000000000001';
    expect(await json(await service.api('/api/compare', { method: 'POST', json: { candidate_run_id: id } }), 400)).toMatchObject({
      error: 'baseline_run_id is required',
    });
    expect(await json(await service.api('/api/compare', { method: 'POST', json: { baseline_run_id: id } }), 400)).toMatchObject({
      error: 'candidate_run_id is required',
    });
    expect(await json(await service.api('/api/compare', { method: 'POST', json: { baseline_run_id: id, candidate_run_id: id } }), 400)).toMatchObject({
      error: 'baseline_run_id and candidate_run_id must be different',
    });
    const [some] = (await json<{ runs: RunBody[] }>(await service.api('/api/runs?limit=1'), 200)).runs;
    expect(await json(await service.api('/api/compare', { method: 'POST', json: { baseline_run_id: id, candidate_run_id: some.id } }), 404)).toMatchObject({
      error: `Baseline run ${id} not found`,
    });
    expect(await json(await service.api('/api/compare', { method: 'POST', json: { baseline_run_id: some.id, candidate_run_id: id } }), 404)).toMatchObject({
      error: `Candidate run ${id} not found`,
    });
  });
});

describe('suite versions', () => {
  it('pins each run to the suite version it ran', async () => {
    const suite = await postSuite<{ id: string }>(service, {
      name: 'pinned',
      agent_id: agentId,
      defaultScorers: ['contains'],
      cases: [{ name: 'a', input: { answer: 'alpha' }, expected: { outputContains: ['alpha'] } }],
    });
    const v1 = await json<{ run_id: string }>(
      await service.api('/api/evals/runs', { method: 'POST', json: { suite_name: 'pinned', agent_version: 'v1' } }),
      202,
    );
    await json(
      await service.api(`/api/suites/${suite.id}`, {
        method: 'PUT',
        json: {
          name: 'pinned',
          agent_id: agentId,
          defaultScorers: ['contains'],
          cases: [
            { name: 'a', input: { answer: 'alpha' }, expected: { outputContains: ['alpha'] } },
            { name: 'b', input: { answer: 'beta' }, expected: { outputContains: ['beta'] } },
          ],
        },
      }),
      200,
    );
    const v2 = await json<{ run_id: string }>(
      await service.api('/api/evals/runs', { method: 'POST', json: { suite_name: 'pinned', agent_version: 'v1' } }),
      202,
    );
    const [r1, r2] = [await waitForStatus(v1.run_id, ['completed']), await waitForStatus(v2.run_id, ['completed'])];
    expect([r1.suite_version, r1.summary.total_cases]).toEqual([1, 1]);
    expect([r2.suite_version, r2.summary.total_cases]).toEqual([2, 2]);
    const cmp = await json<{ same_suite_version: boolean; only_in_candidate: string[] }>(
      await service.api('/api/compare', { method: 'POST', json: { baseline_run_id: v1.run_id, candidate_run_id: v2.run_id } }),
      200,
    );
    expect(cmp.same_suite_version).toBe(false);
    expect(cmp.only_in_candidate).toEqual(['b']);
  });
});
