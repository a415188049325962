import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import type { AgentRequest } from '../helpers/test-agent.js';
import { expectJson as json, useServiceWithAgent } from '../helpers/test-service-hooks.js';
import { postSuite } from '../helpers/suite-api.js';

/**
 * What the dashboard's run pages added to the API, on a real Temporal dev server:
 * GET /api/runs/{id}/approvals (the case trials of a run that wait for a person's approval: the
 * run workflow's running trials, each asked by query) and GET /api/runs?suite_id=.
 */
const { svc } = useServiceWithAgent(behaviour, 'approval-agent', { EVAL_RETRY_TIME_SCALE: '0.001', EVAL_APPROVAL_MAX_MS: '120000' });

interface Approval {
  case_index: number;
  trial: number;
  tool: string;
  reason: string | null;
  since: number;
}

/** `input.approval` names a tool to ask approval for (with `input.reason`); the second call answers. */
function behaviour(req: AgentRequest) {
  const input = req.body.input as { answer: string; approval?: string; reason?: string };
  if (input.approval && !req.body.approval)
    return { json: { output: 'waiting', approval: { tool: input.approval, ...(input.reason ? { reason: input.reason } : {}) } } };
  return { json: { output: input.answer } };
}

const approvalsOf = async (runId: string) => json<{ run_id: string; approvals: Approval[] }>(await svc.api(`/api/runs/${runId}/approvals`), 200);

describe('GET /api/runs/{id}/approvals', () => {
  it('lists the trials waiting for approval until each is decided, then none once the run is final', async () => {
    const run = await json<{ id: string }>(
      await svc.api('/api/runs', {
        method: 'POST',
        json: {
          agentId: 'approval-agent',
          dataset: {
            items: [
              { name: 'plain', input: { answer: 'done' }, expected: { outputContains: ['done'] } },
              { name: 'email', input: { answer: 'email sent', approval: 'send_email', reason: 'mails the customer' }, expected: { outputContains: ['sent'] } },
              { name: 'refund', input: { answer: 'refund made', approval: 'issue_refund' }, expected: { outputContains: ['refund'] } },
            ],
          },
          scorers: ['contains'],
          config: { parallel: true },
        },
      }),
      202,
    );
    const waiting = await eventually(async () => {
      const body = await approvalsOf(run.id);
      expect(body.approvals).toHaveLength(2);
      return body;
    }, 60_000);
    expect(waiting.run_id).toBe(run.id);
    expect(waiting.approvals.map((a) => ({ case_index: a.case_index, trial: a.trial, tool: a.tool, reason: a.reason }))).toEqual([
      { case_index: 1, trial: 0, tool: 'send_email', reason: 'mails the customer' },
      { case_index: 2, trial: 0, tool: 'issue_refund', reason: null },
    ]);
    for (const a of waiting.approvals) expect(a.since).toBeGreaterThan(Date.now() - 120_000);

    await json(await svc.api(`/api/runs/${run.id}/cases/1/approval`, { method: 'POST', json: { approved: true } }), 202);
    await eventually(async () => expect((await approvalsOf(run.id)).approvals.map((a) => a.case_index)).toEqual([2]), 30_000);
    await json(await svc.api(`/api/runs/${run.id}/cases/2/approval`, { method: 'POST', json: { approved: false, comment: 'no refunds' } }), 202);

    await eventually(async () => expect((await json<{ status: string }>(await svc.api(`/api/runs/${run.id}`), 200)).status).toBe('completed'), 60_000);
    expect((await approvalsOf(run.id)).approvals).toEqual([]);
    const results = (await json<{ results: Array<{ case_name: string; status: string; error?: string }> }>(await svc.api(`/api/runs/${run.id}/results`), 200))
      .results;
    expect(results.map((r) => [r.case_name, r.status])).toEqual([
      ['plain', 'passed'],
      ['email', 'passed'],
      ['refund', 'failed'],
    ]);
    expect(results[2].error).toMatch(/denied: no refunds/);
  });

  it('answers 404 for an unknown or malformed run id', async () => {
    expect((await svc.api('/api/runs/00000000-0000-4000-8000-000000000000/approvals')).status).toBe(404);
    expect((await svc.api('/api/runs/not-a-run/approvals')).status).toBe(404);
  });
});

describe('GET /api/runs?suite_id=', () => {
  it('lists the runs of one suite by its id, also after the suite is renamed', async () => {
    const suite = await postSuite<{ id: string }>(svc, {
      name: 'by-id',
      agent_id: 'approval-agent',
      defaultScorers: ['contains'],
      cases: [{ name: 'one', input: { answer: 'yes' }, expected: { outputContains: ['yes'] } }],
    });
    const run = await json<{ id: string }>(await svc.api('/api/evals/runs', { method: 'POST', json: { suite_name: 'by-id', agent_version: 'v1' } }), 202);
    const other = await json<{ id: string }>(
      await svc.api('/api/runs', {
        method: 'POST',
        json: { agentId: 'approval-agent', dataset: { items: [{ input: { answer: 'x' } }] }, scorers: ['contains'] },
      }),
      202,
    );
    const list = async (q: string) => json<{ runs: Array<{ id: string }>; total: number }>(await svc.api(`/api/runs?${q}`), 200);
    expect((await list(`suite_id=${suite.id}`)).runs.map((r) => r.id)).toEqual([run.id]);
    expect((await list(`suite_id=${suite.id}`)).total).toBe(1);
    // A rename makes a new version under another name; the run keeps the suite's id.
    await json(
      await svc.api(`/api/suites/${suite.id}`, {
        method: 'PUT',
        json: { name: 'by-id-renamed', agent_id: 'approval-agent', defaultScorers: ['contains'], cases: [{ name: 'one', input: { answer: 'yes' } }] },
      }),
      200,
    );
    expect((await list(`suite_id=${suite.id}`)).runs.map((r) => r.id)).toEqual([run.id]);
    expect((await list('suite_id=00000000-0000-4000-8000-000000000000')).total).toBe(0);
    expect((await list(`suite_id=${suite.id}`)).runs.map((r) => r.id)).not.toContain(other.id);
    const bad = await json<{ code: string; details: Array<{ field: string }> }>(await svc.api('/api/runs?suite_id=weather'), 422);
    expect(bad.code).toBe('VALIDATION_ERROR');
    expect(bad.details.map((d) => d.field)).toContain('suite_id');
  });
});
