import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { JudgeStore, JudgeUsage, NewJudgeCall, StoredJudgeCall } from '../judges.js';
import { pgSafeJson, pgSafeText } from '../../model/pg-json.js';
import { inTransaction } from './transaction.js';

export type { JudgeStore, JudgeUsage, NewJudgeCall, StoredJudgeCall };

export function createJudgeStore(pool: pg.Pool): JudgeStore {
  return {
    async record({ projectId, run, traceId, generation: g, cost }) {
      const input = g.usage?.input_tokens ?? 0;
      const output = g.usage?.output_tokens ?? 0;
      await inTransaction(pool, async (client) => {
        await client.query(
          `INSERT INTO judge_calls (id, project_id, run_id, case_index, trial, trace_id, scorer, provider, model, attempt, status, error, input, output,
             input_tokens, output_tokens, cached_input_tokens, cost_usd, price_version, started_at, ended_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, to_timestamp($20 / 1000.0), to_timestamp($21 / 1000.0))`,
          [
            randomUUID(),
            projectId,
            run?.runId ?? null,
            run?.caseIndex ?? null,
            run?.trial ?? null,
            traceId ?? null,
            g.scorer,
            g.provider,
            g.model,
            g.attempt,
            g.status,
            g.error === undefined ? null : pgSafeText(g.error.slice(0, 4096)),
            pgSafeJson(g.input),
            pgSafeJson(g.output ?? null),
            input,
            output,
            g.usage?.cached_input_tokens ?? 0,
            cost?.cost_usd ?? null,
            cost?.price_version ?? null,
            g.startedAt,
            g.endedAt,
          ],
        );
        if (!run) return;
        await client.query(
          `INSERT INTO judge_run_usage (run_id, calls, input_tokens, output_tokens, cost_usd) VALUES ($1, 1, $2, $3, $4)
           ON CONFLICT (run_id) DO UPDATE SET calls = judge_run_usage.calls + 1, input_tokens = judge_run_usage.input_tokens + $2,
             output_tokens = judge_run_usage.output_tokens + $3, cost_usd = judge_run_usage.cost_usd + $4, updated_at = now()`,
          [run.runId, input, output, cost?.cost_usd ?? 0],
        );
      });
    },

    async runUsage(runId) {
      const { rows } = await pool.query<{ calls: number; input_tokens: string; output_tokens: string; cost_usd: number }>(
        'SELECT calls, input_tokens, output_tokens, cost_usd FROM judge_run_usage WHERE run_id = $1',
        [runId],
      );
      const row = rows[0];
      const input = Number(row?.input_tokens ?? 0);
      const output = Number(row?.output_tokens ?? 0);
      return { calls: row?.calls ?? 0, input_tokens: input, output_tokens: output, tokens: input + output, cost_usd: row?.cost_usd ?? 0 };
    },

    async callsForTrials(runId, trials) {
      if (trials.length === 0) return [];
      const { rows } = await pool.query<
        Omit<StoredJudgeCall, 'input_tokens' | 'output_tokens' | 'cached_input_tokens' | 'started_ms' | 'ended_ms'> &
          Record<'input_tokens' | 'output_tokens' | 'cached_input_tokens' | 'started_ms' | 'ended_ms', string>
      >(
        `SELECT j.id, j.case_index, j.trial, j.scorer, j.provider, j.model, j.attempt, j.status, j.error, j.input, j.output,
           j.input_tokens, j.output_tokens, j.cached_input_tokens, j.cost_usd, j.price_version,
           (extract(epoch FROM j.started_at) * 1000)::bigint AS started_ms, (extract(epoch FROM j.ended_at) * 1000)::bigint AS ended_ms
         FROM judge_calls j JOIN unnest($2::int[], $3::int[]) AS k(case_index, trial) ON k.case_index = j.case_index AND k.trial = j.trial
         WHERE j.run_id = $1 ORDER BY j.started_at, j.id`,
        [runId, trials.map((t) => t.caseIndex), trials.map((t) => t.trial)],
      );
      return rows.map((row) => ({
        ...row,
        input_tokens: Number(row.input_tokens),
        output_tokens: Number(row.output_tokens),
        cached_input_tokens: Number(row.cached_input_tokens),
        started_ms: Number(row.started_ms),
        ended_ms: Number(row.ended_ms),
      }));
    },
  };
}
