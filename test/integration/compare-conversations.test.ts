import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunComparison } from '../../core/evals/compare.js';
import type { CaseResultView } from '../../core/model/eval-run.js';
import type { MetadataStore } from '../../core/store/postgres/metadata-store.js';
import { ORDER, seedConversationRuns, USER_TURNS } from '../helpers/compare-conversations.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { startTestApi, type TestApi } from '../helpers/server.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';

/**
 * POST /api/compare of two runs with a scripted conversation case, on the real stores (embedded
 * PostgreSQL): the runs' turns are recorded as the run workflow records them (RunStore.recordTurn,
 * then the trial), and the comparison answers per-case deltas, significance over cases and the
 * conversation turn by turn, with the candidate's first diverging turn (it forgets the order
 * number at turn 5).
 */
let api: TestApi;
let metadata: MetadataStore;
let ids: { baseline: string; candidate: string };

beforeAll(async () => {
  api = await startTestApi();
  metadata = openServiceMetadata(api.dataDir);
  ids = await seedConversationRuns(metadata.runs, api.defaultProjectId);
});

afterAll(async () => {
  await metadata?.close();
  await api?.stop();
});

const compare = (path: string, baseline: string, candidate: string) =>
  api.api(path, { method: 'POST', json: { baseline_run_id: baseline, candidate_run_id: candidate, threshold: 0.05 } });

describe('comparing conversation runs', () => {
  it('answers per-case deltas as before, and the conversation case turn by turn with its first divergence at turn 5', async () => {
    const r = await json<RunComparison>(await compare('/api/compare', ids.baseline, ids.candidate), 200);
    expect(r.passed).toBe(false);
    expect(r.regressions).toEqual([
      { case_name: 'refund-broken-kettle', scorer: 'knowledgeRetention', baseline_score: 1, candidate_score: 0.25, delta: -0.75 },
    ]);
    expect(r.significance).toMatchObject({ n: 2, n_changed: 1, conclusive: false });
    const greeting = r.cases.find((c) => c.case_name === 'greeting')!;
    expect(greeting).not.toHaveProperty('conversation');

    const refund = r.cases.find((c) => c.case_name === 'refund-broken-kettle')!;
    expect(refund).toMatchObject({ baseline_score: 1, candidate_score: 0.25, baseline_status: 'passed', candidate_status: 'failed' });
    const conv = refund.conversation!;
    expect(conv.first_divergence).toEqual({ turn: 5, reasons: ['pass_fail', 'numbers', 'answer_text'] });
    expect(conv.baseline).toEqual({ trial: 0, turn_count: 6, ended: 'script_done', trace_id: null });
    expect(conv.candidate).toMatchObject({ turn_count: 6, ended: 'script_done' });
    expect(conv.conversation_scores).toEqual([{ scorer: 'knowledgeRetention', baseline_score: 1, candidate_score: 0.25, delta: -0.75 }]);
    expect(conv.turns.map((t) => [t.turn, t.divergence.length > 0])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, false],
      [5, true],
      [6, false],
    ]);
    const five = conv.turns[4];
    expect(five.scores).toEqual([{ scorer: 'contains', baseline_score: 1, candidate_score: 0, delta: -1 }]);
    // Both sides' words as the agents said them (emoji, Hebrew and code fences stored and answered as is).
    expect(five.baseline!.user).toBe(USER_TURNS[4]);
    expect(five.baseline!.output).toContain(`order ${ORDER}`);
    expect(five.candidate!.output).toContain('order number again');
    expect(conv.turns[0].candidate!.user).toContain('😞');
    expect(conv.turns[1].baseline!.output).toContain('```\nhttps://support.example.com/claims/4417/photos\n```');
    expect(conv.turns[3].candidate!.output).toContain('דנה');
    expect(conv.turns[0].baseline!.tool_calls).toEqual([expect.objectContaining({ name: 'lookup_order', input: { order_id: ORDER } })]);
  });

  it('answers the same on the evals family, and the other way round the divergence is the same turn', async () => {
    const evals = await json<RunComparison>(await compare('/api/evals/compare', ids.baseline, ids.candidate), 200);
    const plain = await json<RunComparison>(await compare('/api/compare', ids.baseline, ids.candidate), 200);
    expect(evals).toEqual(plain);
    const swapped = await json<RunComparison>(await compare('/api/compare', ids.candidate, ids.baseline), 200);
    const conv = swapped.cases.find((c) => c.case_name === 'refund-broken-kettle')!.conversation!;
    expect(conv.first_divergence?.turn).toBe(5);
    expect(conv.turns[4].delta).toBe(1);
  });

  it("shows a conversation trial's turns in the run's results, which the comparison reads", async () => {
    const { results } = await json<{ results: CaseResultView[] }>(await api.api(`/api/runs/${ids.candidate}/results`), 200);
    const trial = results.find((c) => c.case_name === 'refund-broken-kettle')!.trials[0];
    expect(trial.turns).toHaveLength(6);
    expect(trial.conversation).toEqual({ ended: 'script_done', turns_done: 6 });
    expect(trial.turns![4]).toMatchObject({ turn: 5, passed: false, avg_score: 0 });
  });
});
