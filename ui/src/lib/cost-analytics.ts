/** The analytics page's Cost section: its groupings, the API query, group names, the chart and log scales. */
import type { AnalyticsRangeKey } from './analytics.js';
import { lineSeries } from './analytics.js';
import { formatUsd } from './cost.js';
import type { CostBreakdown, CostGroup, CostGroupSeries } from '../../../core/model/cost-analytics.js';

export type { CostBreakdown, CostGroup, CostGroupSeries };

/** The groupings the API offers (core/model/cost-analytics.ts COST_GROUPS), as the page names them. */
export const COST_GROUP_LABEL: Record<CostGroup, string> = {
  model: 'Model',
  agent: 'Agent (service)',
  prompt: 'Prompt version',
  user: 'User',
  session: 'Session',
  suite: 'Suite (evaluation run)',
};
export const COST_GROUP_CHOICES = Object.keys(COST_GROUP_LABEL) as CostGroup[];

/** A bucket of the cost charts: an hour or a day. */
export type CostBucket = '1h' | '1d';
export const COST_BUCKET_LABEL: Record<CostBucket, string> = { '1h': 'Hour', '1d': 'Day' };
/**
 * The buckets each range may be cut into, the default first: the short ranges keep the API's
 * automatic width (minutes); 30 days per hour would be more buckets than the API draws.
 */
export const COST_BUCKETS: Record<AnalyticsRangeKey, CostBucket[]> = { '15m': [], '1h': [], '24h': ['1h'], '7d': ['1d', '1h'], '30d': ['1d'] };

/** The bucket drawn: the one chosen when the range allows it, else the range's default (none: automatic). */
export function costBucket(range: AnalyticsRangeKey, chosen: CostBucket | null): CostBucket | null {
  const allowed = COST_BUCKETS[range];
  return chosen !== null && allowed.includes(chosen) ? chosen : (allowed[0] ?? null);
}

/** The parameters of GET /api/analytics/costs for the page's range, grouping and bucket. */
export function costQuery(
  range: AnalyticsRangeKey,
  groupBy: CostGroup,
  bucket: CostBucket | null,
): { range: AnalyticsRangeKey; group_by: CostGroup; interval?: CostBucket } {
  return { range, group_by: groupBy, ...(bucket ? { interval: bucket } : {}) };
}

/** A group's share of the total in words; a share too small to round to 1 % is "<1%", not "0%". */
export function costShare(usd: number, total: number): string {
  if (total <= 0) return '-';
  const share = usd / total;
  return share > 0 && share < 0.005 ? '<1%' : `${Math.round(share * 100)}%`;
}

/** A group as a reader knows it: the suite of a run, "(none)" for calls without the value, "Other groups" for the rest summed. */
export function costGroupName(g: Pick<CostGroupSeries, 'key' | 'label'>, groupBy: CostGroup): string {
  if (g.key === 'other') return 'Other groups';
  if (g.key === '') return groupBy === 'suite' ? '(not an evaluation)' : `(no ${groupBy})`;
  if (groupBy === 'suite') return g.label ? `${g.label} (run ${g.key.slice(0, 8)})` : `run ${g.key.slice(0, 8)}`;
  return g.key;
}

/**
 * A y axis linear from zero, or logarithmic: one outlier (a 1M-token trace) then no longer
 * flattens the rest. On a log axis a zero cannot be drawn, so zeros become gaps (`logValues`).
 */
export function valueAxis(log: boolean, title: string, tick?: (v: number) => string) {
  const ticks = tick ? { ticks: { callback: (v: number | string) => tick(Number(v)) } } : {};
  return log
    ? { type: 'logarithmic' as const, title: { display: true, text: `${title} (log scale)` }, ...ticks }
    : { beginAtZero: true, title: { display: true, text: title }, ...ticks };
}

/** The values a chart draws: on a log axis zeros and missing values are gaps. */
export function logValues(values: readonly (number | null)[], log: boolean): (number | null)[] {
  return values.map((v) => (v === null || (log && v <= 0) ? null : v));
}

/** One line per group (the costliest first, colours in that order), over the answer's buckets. */
export function costLines(c: CostBreakdown, labels: string[], metric: 'cost_usd' | 'tokens', log: boolean) {
  return {
    type: 'line' as const,
    data: {
      labels,
      datasets: c.groups.map((g, i) => lineSeries(costGroupName(g, c.group_by), logValues(g[metric], log), i)),
    },
    options: {
      interaction: { mode: 'index' as const, intersect: false },
      scales: { y: metric === 'cost_usd' ? valueAxis(log, 'USD', formatUsd) : valueAxis(log, 'tokens'), x: { ticks: { maxRotation: 0, autoSkipPadding: 16 } } },
      plugins: { legend: { position: 'bottom' as const, labels: { boxWidth: 12 } } },
    },
  };
}
