import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { pgSafeJson, pgSafeText } from '../../model/pg-json.js';
import { summarize } from '../../evals/case-results.js';
import { FINAL_RUN_STATUSES, type RunCase, type TurnResult } from '../../model/eval-run.js';
import type { RunForWorker, RunStore, StoredTrialTrace, StoredTurn, TrialTraceData } from '../runs.js';
import { inTransaction } from './transaction.js';
import { CASE_COLUMNS, createRunViews, RUN_COLUMNS, RUN_TRIALS_JOIN, runCase, TURN_COLUMNS, type RunRow } from './run-views.js';

export type { RunStore };

/** The last parameters of a trial's and a turn's insert: its error, trace, the calls it made and when it ran. */
const outcomeParams = (o: { error: string | null; trace_id: string | null }, trace: TrialTraceData): unknown[] => [
  o.error === null ? null : pgSafeText(o.error),
  o.trace_id,
  pgSafeJson(trace.calls),
  Math.round(trace.started_ms),
  Math.round(trace.ended_ms),
];

export function createRunStore(pool: pg.Pool): RunStore {
  const { caseViews, view, runRow } = createRunViews(pool);

  return {
    async create(run) {
      const id = randomUUID();
      await inTransaction(pool, async (client) => {
        await client.query(
          // A local run starts at once (its client runs it); a managed one when a worker picks it up.
          `INSERT INTO eval_runs (id, project_id, name, suite_id, suite_version, suite_name, agent_id, agent_name, agent_version, status, config, aggregation, min_score, case_count, repetitions, execution, started_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $15 = 'local' THEN 'running' ELSE 'pending' END, $10, $11, $12, $13, $14, $15, CASE WHEN $15 = 'local' THEN now() END)`,
          [
            id,
            run.projectId,
            run.name ?? null,
            run.suite?.id ?? null,
            run.suite?.version ?? null,
            run.suite?.name ?? null,
            run.agent.id,
            run.agent.name,
            run.agentVersion,
            JSON.stringify(run.config),
            run.aggregation,
            run.minScore,
            run.cases.length,
            run.config.repetitions,
            run.execution ?? 'managed',
          ],
        );
        // A conversation case has no input (SQL NULL); a single-turn case's input is JSON, `null` included.
        const cases = run.cases.map((c, case_index) => ({
          case_index,
          ...c,
          input: c.turns || c.simulation ? undefined : { value: c.input ?? null },
          turns: c.turns ?? null,
          simulation: c.simulation ?? null,
        }));
        await client.query(
          `INSERT INTO eval_run_cases (run_id, case_index, name, input, expected, scorers, min_score, weight, turns, simulation)
             SELECT $1, x.case_index, x.name, x.input -> 'value', x.expected, x.scorers, x.min_score, x.weight, x.turns, x.simulation
             FROM jsonb_to_recordset($2::jsonb) AS x(case_index int, name text, input jsonb, expected jsonb, scorers jsonb, min_score double precision, weight double precision, turns jsonb, simulation jsonb)`,
          [id, JSON.stringify(cases)],
        );
      });
      return id;
    },

    async discard(runId) {
      await pool.query('DELETE FROM eval_runs WHERE id = $1', [runId]);
    },

    async get(projectId, runId) {
      const row = await runRow(runId, projectId);
      return row ? view(row) : null;
    },

    async list(projectId, q) {
      const where = ['r.project_id = $1'];
      const params: unknown[] = [projectId];
      const add = (sql: string, value: unknown) => {
        params.push(value);
        where.push(sql.replaceAll('?', `$${params.length}`));
      };
      if (q.status) add('r.status = ?', q.status);
      if (q.suite_name) add('r.suite_name = ?', q.suite_name);
      if (q.suite_id) add('r.suite_id = ?', q.suite_id);
      if (q.agent_id) add('(r.agent_id::text = ? OR r.agent_name = ?)', q.agent_id);
      if (q.agent_version) add('r.agent_version = ?', q.agent_version);
      const filter = where.join(' AND ');
      const [{ rows }, count] = await Promise.all([
        pool.query<RunRow>(
          `SELECT ${RUN_COLUMNS} FROM eval_runs r ${RUN_TRIALS_JOIN} WHERE ${filter} ORDER BY r.created_at DESC, r.id DESC LIMIT ${q.limit} OFFSET ${q.offset}`,
          params,
        ),
        pool.query<{ n: string }>(`SELECT count(*) AS n FROM eval_runs r WHERE ${filter}`, params),
      ]);
      return { runs: await Promise.all(rows.map(view)), total: Number(count.rows[0].n) };
    },

    async results(projectId, runId) {
      const row = await runRow(runId, projectId);
      if (!row) return null;
      return (await caseViews(row)).map((c) => c.view);
    },

    async forWorker(runId) {
      const { rows } = await pool.query<RunForWorker>(
        'SELECT id, project_id, agent_id, agent_name, agent_version, status, config, aggregation, min_score FROM eval_runs WHERE id = $1',
        [runId],
      );
      return rows[0] ?? null;
    },

    async getCase(runId, caseIndex) {
      const { rows } = await pool.query<RunCase>(`SELECT ${CASE_COLUMNS} FROM eval_run_cases WHERE run_id = $1 AND case_index = $2`, [runId, caseIndex]);
      return rows[0] ? runCase(rows[0]) : null;
    },

    async casesOf(runId, caseIndexes) {
      const { rows } = await pool.query<RunCase>(
        `SELECT ${CASE_COLUMNS} FROM eval_run_cases WHERE run_id = $1 AND case_index = ANY($2::int[]) ORDER BY case_index`,
        [runId, caseIndexes],
      );
      return rows.map(runCase);
    },

    async recordedTrial(runId, caseIndex, trial) {
      const { rows } = await pool.query<{ status: 'passed' | 'failed' | 'cancelled'; calls: unknown[] | null }>(
        'SELECT status, calls FROM eval_case_results WHERE run_id = $1 AND case_index = $2 AND trial = $3',
        [runId, caseIndex, trial],
      );
      return rows[0] ? { status: rows[0].status, calls: rows[0].calls ?? [] } : null;
    },

    async setStatus(runId, status) {
      const { rowCount } = await pool.query(
        `UPDATE eval_runs SET status = $2, updated_at = now(), started_at = COALESCE(started_at, CASE WHEN $2 = 'running' THEN now() END)
         WHERE id = $1 AND status NOT IN ('completed', 'cancelled', 'failed') AND status <> $2`,
        [runId, status],
      );
      return (rowCount ?? 0) > 0;
    },

    async recordTrial(runId, caseIndex, trial, r, trace) {
      await pool.query(
        `INSERT INTO eval_case_results (run_id, case_index, trial, status, details, avg_score, passed, duration_ms, latency_ms, output, tool_calls, usage, approval, error, trace_id, calls, started_ms, ended_ms, conversation)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
         ON CONFLICT (run_id, case_index, trial) DO NOTHING`,
        [
          // An agent's answer is stored as it came, made storable (NUL and lone surrogates become U+FFFD).
          runId,
          caseIndex,
          trial,
          r.status,
          pgSafeJson(r.details),
          r.avg_score,
          r.passed,
          r.duration_ms,
          r.latency_ms,
          pgSafeJson(r.output),
          pgSafeJson(r.tool_calls),
          pgSafeJson(r.usage),
          pgSafeJson(r.approval),
          ...outcomeParams(r, trace),
          r.conversation ? JSON.stringify(r.conversation) : null,
        ],
      );
    },

    async recordTurn(runId, caseIndex, trial, t, trace) {
      await pool.query(
        `INSERT INTO eval_turn_results (run_id, case_index, trial, turn, user_message, output, tool_calls, usage, latency_ms, details, avg_score, passed, approval, error, trace_id, calls, started_ms, ended_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
         ON CONFLICT (run_id, case_index, trial, turn) DO NOTHING`,
        [
          runId,
          caseIndex,
          trial,
          t.turn,
          pgSafeText(t.user),
          pgSafeJson(t.output),
          pgSafeJson(t.tool_calls),
          pgSafeJson(t.usage),
          t.latency_ms,
          pgSafeJson(t.details),
          t.avg_score,
          t.passed,
          pgSafeJson(t.approval),
          ...outcomeParams(t, trace),
        ],
      );
    },

    async turnsOf(runId, caseIndex, trial) {
      const { rows } = await pool.query<TurnResult & { calls: unknown[] | null; started_ms: string | null; ended_ms: string | null }>(
        `SELECT ${TURN_COLUMNS}, calls, started_ms, ended_ms FROM eval_turn_results WHERE run_id = $1 AND case_index = $2 AND trial = $3 ORDER BY turn`,
        [runId, caseIndex, trial],
      );
      return rows.map((row): StoredTurn => ({ ...row, calls: row.calls ?? [], started_ms: Number(row.started_ms ?? 0), ended_ms: Number(row.ended_ms ?? 0) }));
    },

    async trialsForTrace(runId, trials) {
      const { rows } = await pool.query<
        Omit<StoredTrialTrace, 'started_ms' | 'ended_ms' | 'calls'> & { started_ms: string | null; ended_ms: string | null; calls: unknown[] | null }
      >(
        `SELECT r.case_index, r.trial, c.name AS case_name, c.input, r.status, r.details, r.avg_score, r.error, r.calls, r.started_ms, r.ended_ms
         FROM eval_case_results r JOIN eval_run_cases c ON c.run_id = r.run_id AND c.case_index = r.case_index
         JOIN unnest($2::int[], $3::int[]) AS k(case_index, trial) ON k.case_index = r.case_index AND k.trial = r.trial
         WHERE r.run_id = $1`,
        [runId, trials.map((t) => t.caseIndex), trials.map((t) => t.trial)],
      );
      return rows.map((row) => ({ ...row, calls: row.calls ?? [], started_ms: Number(row.started_ms ?? 0), ended_ms: Number(row.ended_ms ?? 0) }));
    },

    async unlinkTraces(runId, trials) {
      await pool.query(
        `UPDATE eval_case_results r SET trace_id = NULL FROM unnest($2::int[], $3::int[]) AS k(case_index, trial)
         WHERE r.run_id = $1 AND r.case_index = k.case_index AND r.trial = k.trial`,
        [runId, trials.map((t) => t.caseIndex), trials.map((t) => t.trial)],
      );
    },

    async cancelPending(runId, caseIndex) {
      const { rowCount } = await pool.query(
        `INSERT INTO eval_case_results (run_id, case_index, trial, status, error)
         SELECT c.run_id, c.case_index, t.trial, 'cancelled', 'cancelled before it ran'
         FROM eval_run_cases c
         JOIN eval_runs r ON r.id = c.run_id
         CROSS JOIN LATERAL generate_series(0, r.repetitions - 1) AS t(trial)
         WHERE c.run_id = $1 AND ($2::int IS NULL OR c.case_index = $2)
         ON CONFLICT (run_id, case_index, trial) DO NOTHING`,
        [runId, caseIndex ?? null],
      );
      return rowCount ?? 0;
    },

    async finish(runId, status, error) {
      const row = await runRow(runId);
      if (!row || FINAL_RUN_STATUSES.has(row.status)) return;
      const completedAt = new Date();
      const summary = summarize(await caseViews(row), row.started_at ? completedAt.getTime() - row.started_at.getTime() : 0);
      await pool.query(
        `UPDATE eval_runs SET status = $2, summary = $3, error = $4, completed_at = $5, updated_at = now(), started_at = COALESCE(started_at, $5)
         WHERE id = $1 AND status NOT IN ('completed', 'cancelled', 'failed')`,
        [runId, status, JSON.stringify(summary), error ?? null, completedAt],
      );
    },
  };
}
