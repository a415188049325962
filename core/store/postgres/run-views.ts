import type pg from 'pg';
import { caseResultView, summarize } from '../../evals/case-results.js';
import type { CaseResultView, RunCase, RunSummary, RunView, TrialRecord, TurnResult } from '../../model/eval-run.js';

/**
 * How a run is read back from PostgreSQL (run-store.ts writes it): its row with the count of
 * recorded trials, its cases, trials and turns, and the view the API answers, whose summary is
 * computed from the stored rows the same way while the run goes and at its end.
 */

/** A run's row with its count of recorded trials; the fields a view shows as they are stored come from {@link RunView}. */
export type RunRow = Pick<
  RunView,
  | 'id'
  | 'name'
  | 'suite_id'
  | 'suite_version'
  | 'suite_name'
  | 'agent_id'
  | 'agent_name'
  | 'agent_version'
  | 'execution'
  | 'status'
  | 'config'
  | 'aggregation'
  | 'min_score'
  | 'error'
> & {
  project_id: string;
  case_count: number;
  repetitions: number;
  summary: RunSummary | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  trials_done: string;
  trials_cancelled: string;
};

export type TrialRow = TrialRecord & { case_index: number; trial: number };
export type TurnRow = TurnResult & { case_index: number; trial: number };

export const CASE_COLUMNS = 'case_index, name, input, expected, scorers, min_score, weight, turns, simulation';
export const TURN_COLUMNS = 'turn, user_message AS "user", output, tool_calls, usage, latency_ms, details, avg_score, passed, approval, error, trace_id';

/** A case row as the model has it: a single-turn case without the conversation fields (null in its row). */
export function runCase(row: RunCase): RunCase {
  const { turns, simulation, ...rest } = row;
  return { ...rest, ...(turns ? { turns } : {}), ...(simulation ? { simulation } : {}) };
}

/** A turn row as the model has it (its case and trial are where it is shown). */
const turnOf = ({ case_index: _c, trial: _t, ...turn }: TurnRow): TurnResult => turn;

export const RUN_COLUMNS = `r.id, r.project_id, r.name, r.suite_id, r.suite_version, r.suite_name, r.agent_id, r.agent_name, r.agent_version, r.execution,
  r.status, r.config, r.aggregation, r.min_score, r.case_count, r.repetitions, r.summary, r.error, r.created_at, r.started_at, r.completed_at,
  t.trials_done, t.trials_cancelled`;

/** The run's recorded trials, and of them the ones cancelled (a cancelled run records each trial it did not run): {@link RUN_COLUMNS}' join. */
export const RUN_TRIALS_JOIN = `CROSS JOIN LATERAL (
  SELECT count(*) AS trials_done, count(*) FILTER (WHERE c.status = 'cancelled') AS trials_cancelled
  FROM eval_case_results c WHERE c.run_id = r.id) t`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function elapsed(row: RunRow): number {
  if (!row.started_at) return 0;
  return (row.completed_at ?? new Date()).getTime() - row.started_at.getTime();
}

const EMPTY_SUMMARY = (total: number): RunSummary => ({
  total_cases: total,
  passed: 0,
  failed: 0,
  cancelled: 0,
  avg_score: 0,
  scores_by_scorer: {},
  duration_ms: 0,
});

/** The reads of a run's rows and the view made of them. */
export function createRunViews(pool: pg.Pool) {
  async function caseRows(runId: string): Promise<RunCase[]> {
    const { rows } = await pool.query<RunCase>(`SELECT ${CASE_COLUMNS} FROM eval_run_cases WHERE run_id = $1 ORDER BY case_index`, [runId]);
    return rows.map(runCase);
  }

  async function trialRows(runId: string): Promise<TrialRow[]> {
    const { rows } = await pool.query<TrialRow>(
      `SELECT case_index, trial, status, details, avg_score, passed, duration_ms, latency_ms, output, tool_calls, usage, approval, error, trace_id, conversation
       FROM eval_case_results WHERE run_id = $1 ORDER BY case_index, trial`,
      [runId],
    );
    return rows;
  }

  /** A run's recorded turns (conversation cases only), in order. */
  async function turnRows(runId: string): Promise<TurnRow[]> {
    const { rows } = await pool.query<TurnRow>(
      `SELECT case_index, trial, ${TURN_COLUMNS} FROM eval_turn_results WHERE run_id = $1 ORDER BY case_index, trial, turn`,
      [runId],
    );
    return rows;
  }

  /**
   * Case views from stored rows; the summary is computed the same way while running and at the
   * end. A conversation trial shows its turns: recorded ones with the trial (their trace is the
   * trial's, unlinked with it), the turns of a trial under way in the case's `running`.
   */
  async function caseViews(row: RunRow): Promise<Array<{ view: CaseResultView; weight: number }>> {
    const [cases, trials, turns] = await Promise.all([caseRows(row.id), trialRows(row.id), turnRows(row.id)]);
    const byCase = new Map<number, TrialRow[]>();
    for (const t of trials) {
      const list = byCase.get(t.case_index) ?? [];
      list.push(t);
      byCase.set(t.case_index, list);
    }
    const turnsOf = new Map<string, TurnResult[]>();
    for (const t of turns) {
      const k = `${t.case_index}:${t.trial}`;
      turnsOf.set(k, [...(turnsOf.get(k) ?? []), turnOf(t)]);
    }
    const scoring = { aggregation: row.aggregation, minScore: row.min_score };
    return cases.map((c) => {
      const conversation = Boolean(c.turns || c.simulation);
      const recorded = (byCase.get(c.case_index) ?? []).map(({ case_index: _ci, conversation: conv, ...t }) =>
        conversation
          ? { ...t, conversation: conv ?? null, turns: (turnsOf.get(`${c.case_index}:${t.trial}`) ?? []).map((turn) => ({ ...turn, trace_id: t.trace_id })) }
          : t,
      );
      const view = caseResultView(c, recorded, scoring);
      if (conversation) {
        const done = new Set(recorded.map((t) => t.trial));
        const running = [...turnsOf]
          .filter(([k]) => k.startsWith(`${c.case_index}:`) && !done.has(Number(k.split(':')[1])))
          .map(([k, list]) => ({ trial: Number(k.split(':')[1]), turns: list }));
        if (running.length) view.running = running;
      }
      return { view, weight: c.weight };
    });
  }

  async function view(row: RunRow): Promise<RunView> {
    let summary = row.summary;
    if (!summary)
      summary = Number(row.trials_done) > 0 ? summarize(await caseViews(row), elapsed(row)) : { ...EMPTY_SUMMARY(row.case_count), duration_ms: elapsed(row) };
    return {
      id: row.id,
      run_id: row.id,
      name: row.name,
      suite_name: row.suite_name,
      suite_id: row.suite_id,
      suite_version: row.suite_version,
      agent_id: row.agent_id,
      agent_name: row.agent_name,
      agent_version: row.agent_version,
      execution: row.execution,
      status: row.status,
      config: row.config,
      aggregation: row.aggregation,
      min_score: row.min_score,
      summary,
      progress: { completed: Number(row.trials_done), total: row.case_count * row.repetitions, cancelled: Number(row.trials_cancelled) },
      error: row.error,
      created_at: row.created_at.toISOString(),
      started_at: iso(row.started_at),
      completed_at: iso(row.completed_at),
    };
  }

  async function runRow(runId: string, projectId?: string): Promise<RunRow | null> {
    const { rows } = await pool.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM eval_runs r ${RUN_TRIALS_JOIN} WHERE r.id = $1 ${projectId === undefined ? '' : 'AND r.project_id = $2'}`,
      projectId === undefined ? [runId] : [runId, projectId],
    );
    return rows[0] ?? null;
  }

  return { caseRows, caseViews, view, runRow };
}
