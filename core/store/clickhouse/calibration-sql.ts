/**
 * SQL of judge calibration (docs/judges.md "Calibration"): judges' scores (source `eval`) paired
 * with people's (source `annotation`) on the same trace and score name, and per (judge, score
 * name) the statistics ClickHouse computes well: count, Pearson's r, Spearman's rho (Pearson's r
 * of mean ranks: rank-sql.ts; human ratings are mostly ties), means, and the rating-band confusion counts Cohen's kappa
 * is finished from (core/evals/agreement.ts). Values are always bound; the only text spliced in
 * comes from the fixed fragments below.
 */

import { meanRankSql } from './rank-sql.js';

const TIME = "DateTime64(3, 'UTC')";

/** A judge's name: the scorer that gave the score, or the score's name when it names none. */
const JUDGE = "if(scorer_name != '', scorer_name, name)";

/** The rating band index (0 poor .. 3 excellent) of a value; the twin of `ratingBand`. */
const band = (v: string) => `multiIf(round(${v}, 9) >= 0.9, 3, round(${v}, 9) >= 0.7, 2, round(${v}, 9) >= 0.5, 1, 0)`;

/** Mean rank of a value within its (judge, score name) group: ties share the mean of their ranks. */
const meanRank = (v: string) => meanRankSql(v, ['judge', 'score_name']);

export interface CalibrationSqlOptions {
  /** Only the judge {judge}; every judge otherwise. */
  judge: boolean;
  /** Only its score name {scoreName}. */
  scoreName: boolean;
  /** People's scores named {humanScoreName} instead of the judge's score name. */
  humanScoreName: boolean;
}

export function calibrationSql(o: CalibrationSqlOptions): string {
  const judgeWhere = [o.judge ? ` AND ${JUDGE} = {judge:String}` : '', o.scoreName ? ' AND name = {scoreName:String}' : ''].join('');
  const humanWhere = o.humanScoreName ? ' AND name = {humanScoreName:String}' : '';
  const on = o.humanScoreName ? 'j.trace_id = h.trace_id' : 'j.trace_id = h.trace_id AND j.score_name = h.human_name';
  // Scores are read once each (the newest row of a score id), as the rest of the store does.
  const judged = `
    SELECT ${JUDGE} AS judge, name AS score_name, trace_id, avg(value) AS j
    FROM (
      SELECT score_id, trace_id, name, scorer_name, value
      FROM agent_eval.scores
      WHERE project_id = {project:String} AND source = 'eval' AND created_at >= {from:${TIME}} AND created_at < {to:${TIME}}${judgeWhere}
      ORDER BY created_at DESC
      LIMIT 1 BY score_id
    )
    GROUP BY judge, score_name, trace_id`;
  const human = `
    SELECT name AS human_name, trace_id, avg(value) AS h
    FROM (
      SELECT score_id, trace_id, name, value
      FROM agent_eval.scores
      WHERE project_id = {project:String} AND source = 'annotation'${humanWhere}
        AND trace_id IN (
          SELECT trace_id FROM agent_eval.scores
          WHERE project_id = {project:String} AND source = 'eval' AND created_at >= {from:${TIME}} AND created_at < {to:${TIME}}${judgeWhere})
      ORDER BY created_at DESC
      LIMIT 1 BY score_id
    )
    GROUP BY human_name, trace_id`;
  return `
SELECT
  judge,
  score_name,
  any(human_name) AS human_score_name,
  count() AS n,
  corr(j, h) AS pearson,
  corr(rj, rh) AS spearman,
  avg(j) AS judge_mean,
  avg(h) AS human_mean,
  avg(abs(j - h)) AS mean_abs_diff,
  sumMap([toUInt8(bj * 4 + bh)], [toUInt64(1)]) AS cells
FROM (
  SELECT judge, score_name, human_name, j, h, ${band('j')} AS bj, ${band('h')} AS bh, ${meanRank('j')} AS rj, ${meanRank('h')} AS rh
  FROM (${judged}) AS j
  INNER JOIN (${human}) AS h ON ${on}
)
GROUP BY judge, score_name
HAVING n >= {minPairs:UInt32}
ORDER BY n DESC, judge, score_name
LIMIT {limit:UInt32}`;
}
