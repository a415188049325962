import { describe, expect, it } from 'vitest';
import { COST_BUCKETS, costBucket, costGroupName, costQuery, costShare, logValues, valueAxis } from '../../../ui/src/lib/cost-analytics.js';
import { MAX_BUCKETS } from '../../../core/model/analytics.js';

/** The Cost section's helpers (ui/src/lib/cost-analytics.ts): the query it sends, group names, shares and log scales. */
describe('cost analytics helpers', () => {
  it('asks for per-day buckets over a week unless hours are chosen, and never an interval a range refuses', () => {
    expect(costQuery('7d', 'model', costBucket('7d', null))).toEqual({ range: '7d', group_by: 'model', interval: '1d' });
    expect(costQuery('7d', 'user', costBucket('7d', '1h'))).toEqual({ range: '7d', group_by: 'user', interval: '1h' });
    // 30 days of hours is over the API's bucket limit: the chosen hour falls back to days.
    expect(costBucket('30d', '1h')).toBe('1d');
    expect(30 * 24).toBeGreaterThan(MAX_BUCKETS);
    // Short ranges keep the API's automatic width.
    expect(costQuery('1h', 'agent', costBucket('1h', '1d'))).toEqual({ range: '1h', group_by: 'agent' });
    for (const [range, buckets] of Object.entries(COST_BUCKETS)) expect(buckets.length, range).toBeLessThanOrEqual(2);
  });

  it('names groups as a reader knows them', () => {
    expect(costGroupName({ key: 'gpt-4o' }, 'model')).toBe('gpt-4o');
    expect(costGroupName({ key: '' }, 'user')).toBe('(no user)');
    expect(costGroupName({ key: '' }, 'suite')).toBe('(not an evaluation)');
    expect(costGroupName({ key: 'other' }, 'session')).toBe('Other groups');
    expect(costGroupName({ key: '0b6a3bd6-64a1-4a4e', label: 'refunds' }, 'suite')).toBe('refunds (run 0b6a3bd6)');
    expect(costGroupName({ key: '0b6a3bd6-64a1-4a4e', label: null }, 'suite')).toBe('run 0b6a3bd6');
  });

  it('gives shares in whole percent, a tiny one as "<1%", none of nothing', () => {
    expect(costShare(3.01, 3.06)).toBe('98%');
    expect(costShare(0.0076, 3.06)).toBe('<1%');
    expect(costShare(0, 3.06)).toBe('0%');
    expect(costShare(0, 0)).toBe('-');
  });

  it('turns zeros into gaps on a log axis only, and labels the axis', () => {
    expect(logValues([0, 1, null, 1_000_000], true)).toEqual([null, 1, null, 1_000_000]);
    expect(logValues([0, 1, null], false)).toEqual([0, 1, null]);
    expect(valueAxis(true, 'tokens')).toMatchObject({ type: 'logarithmic', title: { text: 'tokens (log scale)' } });
    expect(valueAxis(false, 'tokens')).toMatchObject({ beginAtZero: true, title: { text: 'tokens' } });
    const usd = valueAxis(true, 'USD', (v) => `$${v}`) as { ticks: { callback: (v: number | string) => string } };
    expect(usd.ticks.callback(0.5)).toBe('$0.5');
  });
});
