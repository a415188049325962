import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCall, AgentTurn, CaseRecord, CaseRun, EvalActivities, ScoredTrial } from '../../workflows/activity-types.js';
import { approvalSignal, approvalStateQuery, cancelRunSignal, cancelSignal, pauseSignal, progressQuery } from '../../workflows/contract.js';
import { caseWorkflowId, RUN_WORKFLOW, runWorkflowId, type RunPolicy, type RunWorkflowInput } from '../../workflows/contract.js';
import { eventually } from '../helpers/eventually.js';
import { startWorkflowEnv, type WorkflowEnv } from '../helpers/workflow-env.js';

/**
 * The run and case workflows' decisions on a real engine (the dev server) with mocked activities:
 * repetitions, the three ways a trial is scored and recorded, approval, pause, cancel and
 * continue-as-new; and histories recorded before the trial's decisions moved into the workflow
 * (test/fixtures/workflow-histories, recorded with the workflows of commit fffe4d3) replaying on
 * the old path. The end-to-end tests (eval-runs, judges-runs, eval-run-bounds) run the same
 * workflows with the real activities.
 */

let w: WorkflowEnv;
beforeAll(async () => {
  w = await startWorkflowEnv();
});
afterAll(async () => {
  await w?.teardown();
});

const policy: RunPolicy = { pauseMaxMs: 60_000, approvalMaxMs: 60_000, retryTimeScale: 0.001, historyMaxEvents: 10_000 };
const answer = (output = 'ok', extra: Partial<AgentCall['reply']> = {}): AgentCall => ({
  startedAt: 1,
  endedAt: 2,
  reply: { output, ...extra } as AgentCall['reply'],
});
const key = (t: { caseIndex: number; trial: number }) => `${t.caseIndex}:${t.trial}`;
let runs = 0;
const recorded = { tag: 'recorded', status: 'passed' } as const;

/**
 * The activities as a fake world: the agent's turns are `agent`'s answers, everything else is
 * recorded as it is called. executeAgent and scoreCase (the old path) must not be called.
 */
function fakeActivities(
  agent: (input: CaseRun & { call: number; grant?: unknown }) => Promise<AgentTurn> | AgentTurn,
  scoreTrial?: (input: CaseRun & { judged?: Record<string, unknown> }) => ScoredTrial,
) {
  const log = {
    turns: [] as Array<{ key: string; call: number; grant?: unknown }>,
    judged: [] as string[],
    scored: [] as Array<{ key: string; judged?: Record<string, unknown> }>,
    records: new Map<string, CaseRecord>(),
    marks: [] as string[],
    pendingCancelled: [] as Array<number | undefined>,
    traces: [] as string[],
    finished: [] as string[],
  };
  const done = new Set<string>();
  const oldPath = () => Promise.reject(ApplicationFailure.nonRetryable('the old path ran', 'OldPath'));
  const activities: EvalActivities = {
    async callCaseAgent(input) {
      // As the real activity: a trial recorded by an earlier attempt (the engine may run a local
      // activity again when a signal came in while it ran) does not call the agent again.
      if (done.has(key(input))) return { call: answer(), ...recorded };
      log.turns.push({ key: key(input), call: input.call, grant: input.grant });
      const turn = await agent(input);
      if (turn.tag === 'recorded') done.add(key(input));
      return turn;
    },
    callJudge({ scorer, caseIndex, trial }) {
      log.judged.push(`${caseIndex}:${trial}:${scorer}`);
      if (scorer === 'refused')
        return Promise.reject(ApplicationFailure.create({ message: 'provider refused the request', type: 'LlmRequestRefused', nonRetryable: true }));
      return Promise.resolve({ score: 0.5, reason: `${scorer} says so`, evidence: [] });
    },
    scoreTrial(input) {
      log.scored.push({ key: key(input), judged: input.judged });
      return Promise.resolve(scoreTrial?.(input) ?? { tag: 'recorded', status: 'passed' });
    },
    executeAgent: oldPath,
    scoreCase: oldPath,
    // Conversation trials are not these tests' (conversation-runs.test.ts runs them on the real activities).
    conversationUserTurn: oldPath,
    callTurnAgent: oldPath,
    finishTurn: oldPath,
    finishConversation: oldPath,
    recordCaseResult(record) {
      if (!log.records.has(key(record))) log.records.set(key(record), record);
      return Promise.resolve();
    },
    emitCaseTraces({ trials }) {
      log.traces.push(...trials.map(key));
      return Promise.resolve();
    },
    unlinkCaseTraces: () => Promise.resolve(),
    markRun(_runId, status) {
      log.marks.push(status);
      return Promise.resolve();
    },
    cancelPendingCases(_runId, caseIndex) {
      log.pendingCancelled.push(caseIndex);
      return Promise.resolve();
    },
    finishRun(_runId, status) {
      log.finished.push(status);
      return Promise.resolve();
    },
  };
  return { activities, log };
}

function startRun(taskQueue: string, over: Partial<RunWorkflowInput> = {}) {
  const runId = `run-${process.pid}-${++runs}`;
  const input: RunWorkflowInput = { runId, projectId: 'p', caseCount: 1, repetitions: 1, concurrency: 1, policy, ...over };
  return w.env.client.workflow.start(RUN_WORKFLOW, { taskQueue, workflowId: runWorkflowId(input.runId), args: [input] }).then((handle) => ({ handle, runId }));
}

describe('a trial decided in the workflow', () => {
  it('runs every case and repetition once; a rules-only case is scored and recorded by its agent call', async () => {
    const { activities, log } = fakeActivities(() => ({ call: answer(), ...recorded }));
    await w.withWorker(activities, async (tq) => {
      const { handle } = await startRun(tq, { caseCount: 3, repetitions: 2, concurrency: 4 });
      expect(await handle.result()).toBe('completed');
      expect(await handle.query(progressQuery)).toEqual({ completed: 6, total: 6 });
    });
    expect(log.turns.map((t) => t.key).sort()).toEqual(['0:0', '0:1', '1:0', '1:1', '2:0', '2:1']);
    expect(log.scored).toEqual([]);
    expect(log.records.size).toBe(0);
    expect(log.traces.sort()).toEqual(['0:0', '0:1', '1:0', '1:1', '2:0', '2:1']);
    expect(log.marks).toEqual(['running']);
    expect(log.finished).toEqual(['completed']);
  });

  it('calls each LLM judge as its own activity, then scores with their verdicts; a refused judge scores 0 with the reason', async () => {
    const { activities, log } = fakeActivities(() => ({ call: answer(), tag: 'to-score', judges: ['helpful', 'refused'] }));
    await w.withWorker(activities, async (tq) => expect(await (await startRun(tq)).handle.result()).toBe('completed'));
    expect(log.judged.sort()).toEqual(['0:0:helpful', '0:0:refused']);
    expect(log.scored).toEqual([
      {
        key: '0:0',
        judged: {
          helpful: { score: 0.5, reason: 'helpful says so', evidence: [] },
          refused: { score: 0, reason: 'scorer error: provider refused the request', evidence: [] },
        },
      },
    ]);
  });

  it('calls the judges scoreTrial names as missing, then scores again', async () => {
    const { activities, log } = fakeActivities(
      () => ({ call: answer(), tag: 'to-score', judges: [] }),
      (input) => (input.judged?.late ? recorded : { tag: 'to-judge', judges: ['late'] }),
    );
    await w.withWorker(activities, async (tq) => expect(await (await startRun(tq)).handle.result()).toBe('completed'));
    expect(log.judged).toEqual(['0:0:late']);
    expect(log.scored.map((s) => Object.keys(s.judged ?? {}))).toEqual([[], ['late']]);
  });

  it('stores a scored trial the store refused, from either activity, through recordCaseResult', async () => {
    const scoredRecord = (run: CaseRun, status: 'passed' | 'failed'): CaseRecord => ({
      ...run,
      endedAt: 3,
      details: { contains: { score: status === 'passed' ? 1 : 0, reason: 'r', evidence: [] } },
      avgScore: status === 'passed' ? 1 : 0,
      passed: status === 'passed',
      status,
    });
    const { activities, log } = fakeActivities(
      (input) =>
        input.caseIndex === 0
          ? { call: answer(), tag: 'not-recorded', record: scoredRecord({ ...input, calls: [answer()] }, 'passed') }
          : { call: answer(), tag: 'to-score', judges: [] },
      (input) => ({ tag: 'not-recorded', record: scoredRecord(input, 'failed') }),
    );
    await w.withWorker(activities, async (tq) => expect(await (await startRun(tq, { caseCount: 2 })).handle.result()).toBe('completed'));
    expect([...log.records.values()].map((r) => [key(r), r.status, r.avgScore])).toEqual([
      ['0:0', 'passed', 1],
      ['1:0', 'failed', 0],
    ]);
  });

  it('records a trial whose agent call failed through its retries as failed, with the error and the call', async () => {
    const { activities, log } = fakeActivities(() => {
      throw ApplicationFailure.nonRetryable('agent answered 422: no', 'AgentReplyInvalid');
    });
    await w.withWorker(activities, async (tq) => expect(await (await startRun(tq)).handle.result()).toBe('completed'));
    const record = log.records.get('0:0')!;
    expect(record).toMatchObject({ status: 'failed', error: 'agent answered 422: no', details: {}, avgScore: 0, passed: false });
    expect(record.calls).toEqual([expect.objectContaining({ error: 'agent answered 422: no' })]);
  });
});

describe('approval', () => {
  const asking = (input: CaseRun & { call: number }): AgentTurn =>
    input.call === 0 ? { call: answer('waiting', { approval: { tool: 'pay', reason: 'money' } }), tag: 'asks-approval' } : { call: answer(), ...recorded };

  it('holds the trial until the run forwards a yes, then calls the agent again with it', async () => {
    const { activities, log } = fakeActivities(asking);
    await w.withWorker(activities, async (tq) => {
      const { handle, runId } = await startRun(tq);
      const child = w.env.client.workflow.getHandle(caseWorkflowId(runId, 0, 0));
      await eventually(async () => expect(await child.query(approvalStateQuery)).toMatchObject({ case_index: 0, trial: 0, tool: 'pay', reason: 'money' }));
      await handle.signal(approvalSignal, { case_index: 0, approved: true, comment: 'fine', by: 'ana' });
      expect(await handle.result()).toBe('completed');
      expect(await child.query(approvalStateQuery)).toBeNull();
    });
    expect(log.turns).toEqual([
      { key: '0:0', call: 0, grant: undefined },
      { key: '0:0', call: 1, grant: { case_index: 0, approved: true, comment: 'fine', by: 'ana' } },
    ]);
  });

  it('fails the trial on a no, and when no answer comes within the approval bound', async () => {
    const { activities, log } = fakeActivities(asking);
    await w.withWorker(activities, async (tq) => {
      const { handle, runId } = await startRun(tq, { caseCount: 2, concurrency: 2, policy: { ...policy, approvalMaxMs: 1500 } });
      await eventually(async () => expect(await w.env.client.workflow.getHandle(caseWorkflowId(runId, 0, 0)).query(approvalStateQuery)).not.toBeNull());
      await handle.signal(approvalSignal, { case_index: 0, approved: false, comment: 'too much' });
      expect(await handle.result()).toBe('completed');
    });
    expect(log.records.get('0:0')).toMatchObject({
      status: 'failed',
      error: "approval for tool 'pay' was denied: too much",
      approval: { tool: 'pay', approved: false, comment: 'too much' },
    });
    expect(log.records.get('1:0')).toMatchObject({
      status: 'failed',
      error: "approval for tool 'pay' was not given within 1500 ms",
      approval: { tool: 'pay', approved: false },
    });
    expect(log.turns.filter((t) => t.call === 1)).toEqual([]);
  });
});

describe('pause, cancel and continue-as-new', () => {
  /** An agent call that answers when `release` is called (or its activity is cancelled, or after 20 s). */
  function gatedAgent() {
    const waiters: Array<() => void> = [];
    const agent = async (): Promise<AgentTurn> => {
      const signal = Context.current().cancellationSignal;
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        signal.addEventListener('abort', () => resolve());
        // Never held past the test (a failed test's worker waits for its calls to shut down).
        setTimeout(resolve, 20_000).unref();
      });
      return { call: answer(), ...recorded };
    };
    return { agent, started: () => waiters.length, release: () => waiters.splice(0).forEach((r) => r()) };
  }

  type RunHandle = Awaited<ReturnType<typeof startRun>>['handle'];

  type ActivityLog = ReturnType<typeof fakeActivities>['log'];

  /** Starts a run of `over` on a worker whose agent calls wait at a gate, and hands `during` the run, the gate and the activities' log once its first call waits; the log. */
  async function withFirstCallWaiting(
    over: Partial<RunWorkflowInput>,
    during: (run: { handle: RunHandle; gate: ReturnType<typeof gatedAgent>; log: ActivityLog }) => Promise<void>,
  ): Promise<ActivityLog> {
    const gate = gatedAgent();
    const { activities, log } = fakeActivities(gate.agent);
    await w.withWorker(activities, async (tq) => {
      const { handle } = await startRun(tq, over);
      await eventually(() => expect(gate.started()).toBe(1));
      await during({ handle, gate, log });
    });
    return log;
  }

  it('pauses (no new trial starts, the status is stored), resumes and completes', async () => {
    const log = await withFirstCallWaiting({ caseCount: 3 }, async ({ handle, gate, log }) => {
      await handle.signal(pauseSignal, { paused: true });
      await eventually(() => expect(log.marks).toEqual(['running', 'paused']));
      gate.release();
      await new Promise((r) => setTimeout(r, 500));
      expect(log.turns).toHaveLength(1);
      expect(await handle.query(progressQuery)).toEqual({ completed: 1, total: 3 });
      await handle.signal(pauseSignal, { paused: false });
      await eventually(() => {
        gate.release();
        expect(log.turns).toHaveLength(3);
      });
      gate.release();
      expect(await handle.result()).toBe('completed');
    });
    expect(log.marks).toEqual(['running', 'paused', 'running']);
  });

  it('resumes by itself when the pause bound elapses', async () => {
    const { activities, log } = fakeActivities(() => ({ call: answer(), ...recorded }));
    await w.withWorker(activities, async (tq) => {
      const { handle } = await startRun(tq, { caseCount: 2, policy: { ...policy, pauseMaxMs: 1000 } });
      await handle.signal(pauseSignal, { paused: true });
      expect(await handle.result()).toBe('completed');
    });
    expect(log.marks.at(-1)).toBe('running');
    expect(log.turns).toHaveLength(2);
  });

  it('cancels a run: the running trial is recorded cancelled, the pending ones too, the run is cancelled', async () => {
    const log = await withFirstCallWaiting({ caseCount: 3 }, async ({ handle }) => {
      await handle.signal(cancelRunSignal);
      expect(await handle.result()).toBe('cancelled');
    });
    expect(log.records.get('0:0')).toMatchObject({ status: 'cancelled', error: 'cancelled while running' });
    expect(log.turns).toHaveLength(1);
    expect(log.pendingCancelled).toEqual([undefined]);
    expect(log.finished).toEqual(['cancelled']);
  });

  it('cancels one case: it is never called, the others run', async () => {
    const log = await withFirstCallWaiting({ caseCount: 3, repetitions: 2 }, async ({ handle, gate, log }) => {
      await handle.signal(cancelSignal, { case_index: 1 });
      await eventually(() => {
        gate.release();
        expect(log.turns).toHaveLength(4);
      });
      gate.release();
      expect(await handle.result()).toBe('completed');
    });
    expect(log.turns.map((t) => t.key)).toEqual(['0:0', '0:1', '2:0', '2:1']);
    expect(log.pendingCancelled).toEqual([1, 1]);
    expect(log.finished).toEqual(['completed']);
  });

  it('continues as new when the history grows, running every trial once and marking the run running once', async () => {
    const { activities, log } = fakeActivities(() => ({ call: answer(), ...recorded }));
    await w.withWorker(activities, async (tq) => {
      const { handle } = await startRun(tq, { caseCount: 8, concurrency: 2, policy: { ...policy, historyMaxEvents: 30 } });
      expect(await handle.result()).toBe('completed');
      const { runId: lastRun } = await w.env.client.workflow.getHandle(handle.workflowId).describe();
      expect(lastRun).not.toBe(handle.firstExecutionRunId);
    });
    expect(log.turns.map((t) => t.key).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `${i}:0`));
    expect(log.traces.sort()).toEqual(Array.from({ length: 8 }, (_, i) => `${i}:0`));
    expect(log.marks).toEqual(['running']);
    expect(log.finished).toEqual(['completed']);
  });
});

describe('histories recorded before the patch', () => {
  const dir = fileURLToPath(new URL('../fixtures/workflow-histories/', import.meta.url));
  const fixtures = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));

  it.each(fixtures)('%s replays on the old path', async (file) => {
    const history: unknown = JSON.parse(fs.readFileSync(`${dir}${file}`, 'utf8'));
    await Worker.runReplayHistory({ workflowBundle: w.bundle }, history);
  });

  it('a history of the new path replays too', async () => {
    const { activities } = fakeActivities(() => ({ call: answer(), tag: 'to-score', judges: ['helpful'] }));
    const { handle, runId } = await w.withWorker(activities, async (tq) => {
      const started = await startRun(tq);
      await started.handle.result();
      return started;
    });
    const child = w.env.client.workflow.getHandle(caseWorkflowId(runId, 0, 0));
    await Worker.runReplayHistory({ workflowBundle: w.bundle }, await child.fetchHistory());
    await Worker.runReplayHistory({ workflowBundle: w.bundle }, await handle.fetchHistory());
  });
});
