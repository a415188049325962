/**
 * Spearman's rho in ClickHouse SQL, right under ties: Pearson's r (`corr`) of mean ranks.
 * ClickHouse's `rankCorr` uses the d^2 formula, which holds only without ties, and scores are
 * mostly ties (pass/fail, ratings on a 5-point scale).
 */

/**
 * The mean rank of `value` within the rows sharing `partition` (all rows when empty): ties share
 * the mean of the ranks they span, e.g. values 1, 2, 2, 3 rank 1, 2.5, 2.5, 4.
 */
export function meanRankSql(value: string, partition: string[] = []): string {
  const within = partition.length ? `PARTITION BY ${partition.join(', ')} ` : '';
  const tied = `PARTITION BY ${[...partition, value].join(', ')}`;
  return `count() OVER (${within}ORDER BY ${value} ASC RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - (count() OVER (${tied}) - 1) / 2`;
}
