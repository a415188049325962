import { agreementLevel, agreementSummary, cohensKappa, observedAgreement } from '../../evals/agreement.js';
import { MAX_CALIBRATIONS, RATING_BANDS, type JudgeCalibration } from '../../model/calibration.js';
import type { ClickHouseClient } from './client.js';
import type { CalibrationReads } from '../analytics-reads.js';
import { calibrationSql } from './calibration-sql.js';
import { toClickHouseTime } from './time.js';

const QUERY_SETTINGS = { max_execution_time: 30 } as const;

interface Row {
  judge: string;
  score_name: string;
  human_score_name: string;
  n: unknown;
  pearson: unknown;
  spearman: unknown;
  judge_mean: unknown;
  human_mean: unknown;
  mean_abs_diff: unknown;
  /** sumMap's answer: band cells (judge band * 4 + human band) and their counts. */
  cells: [unknown[], unknown[]];
}

function num(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** The row's statistics, kappa finished from the band counts. */
function calibrationOf(r: Row): JudgeCalibration {
  const k = RATING_BANDS.length;
  const confusion = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  const [cells, counts] = r.cells;
  cells.forEach((cell, i) => {
    const c = Number(cell);
    confusion[Math.floor(c / k)][c % k] = Number(counts[i]);
  });
  const pairs = num(r.n) ?? 0;
  const kappa = cohensKappa(confusion);
  // Correlation needs three pairs and variation on both sides; rank correlation means nothing without it.
  const pearson = pairs >= 3 ? num(r.pearson) : null;
  return {
    judge: r.judge,
    score_name: r.score_name,
    human_score_name: r.human_score_name,
    pairs,
    pearson_r: pearson,
    spearman_rho: pearson === null ? null : num(r.spearman),
    kappa,
    band_agreement: observedAgreement(confusion),
    agreement: agreementLevel(kappa),
    summary: agreementSummary(r.judge, kappa, pairs),
    judge_mean: num(r.judge_mean) ?? 0,
    human_mean: num(r.human_mean) ?? 0,
    mean_abs_diff: num(r.mean_abs_diff) ?? 0,
    confusion,
  };
}

export function createCalibrationReads(client: ClickHouseClient): CalibrationReads {
  async function rows(query: string, params: Record<string, unknown>): Promise<Row[]> {
    const rs = await client.query({ query, query_params: params, format: 'JSONEachRow', clickhouse_settings: QUERY_SETTINGS });
    return rs.json<Row>();
  }
  const window = (projectId: string, q: { fromMs: number; toMs: number }) => ({
    project: projectId,
    from: toClickHouseTime(q.fromMs),
    to: toClickHouseTime(q.toMs),
  });
  const times = (q: { fromMs: number; toMs: number }) => ({ start_time: new Date(q.fromMs).toISOString(), end_time: new Date(q.toMs).toISOString() });

  return {
    async judge(projectId, judge, q) {
      const sql = calibrationSql({ judge: true, scoreName: q.score_name !== undefined, humanScoreName: q.human_score_name !== undefined });
      const list = await rows(sql, {
        ...window(projectId, q),
        judge,
        scoreName: q.score_name,
        humanScoreName: q.human_score_name,
        minPairs: 1,
        limit: MAX_CALIBRATIONS,
      });
      return { judge, ...times(q), calibrations: list.map(calibrationOf) };
    },

    async list(projectId, q) {
      const sql = calibrationSql({ judge: false, scoreName: false, humanScoreName: false });
      const list = await rows(sql, { ...window(projectId, q), minPairs: q.min_pairs, limit: MAX_CALIBRATIONS + 1 });
      return {
        ...times(q),
        min_pairs: q.min_pairs,
        calibrations: list.slice(0, MAX_CALIBRATIONS).map(calibrationOf),
        truncated: list.length > MAX_CALIBRATIONS,
      };
    },
  };
}
