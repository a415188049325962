import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CalibrationList, JudgeCalibrationAnswer } from '../../core/model/calibration.js';
import type { Score } from '../../core/model/score.js';
import { writeScores } from '../helpers/dashboard-analytics.js';
import { startTestApi, type TestApi } from '../helpers/server.js';
import { numericScore } from '../helpers/score-record.js';

/**
 * GET /api/judges/calibration and /api/judges/{name}/calibration: judges' scores (source `eval`)
 * paired in ClickHouse with people's (source `annotation`, feedback included) on the same traces,
 * and the statistics compared with values worked out by hand.
 */

let svc: TestApi;
const OTHER = 'calibration-other';
const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
let seq = 0;

function score(traceId: string, name: string, value: number, source: Score['source'], scorer: string | null, ageMs = 30 * 60_000): Score {
  seq++;
  const id = `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`;
  return numericScore({ id, traceId, name, value, source, scorer, createdAt: NOW - ageMs });
}

async function json<T>(res: Response, status = 200): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(status);
  return (await res.json()) as T;
}

/**
 * helpfulness_judge vs people on five traces, with ties on both sides: judge 0.1 0.2 0.2 0.3 0.4,
 * people 0.2 0.1 0.3 0.3 0.5. Mean ranks: judge 1 2.5 2.5 4 5, people 2 1 3.5 3.5 5, so
 * Spearman's rho = 7.25 / 9.5 = 0.763157... (the d^2 shortcut would give 0.775, wrong under
 * ties). Pearson's r of the values = 0.054 / sqrt(0.052 * 0.088) = 0.798271...
 */
const HELPFUL_JUDGE = [0.1, 0.2, 0.2, 0.3, 0.4];
const HELPFUL_PEOPLE = [0.2, 0.1, 0.3, 0.3, 0.5];

/**
 * safety_judge vs people on 50 traces, as bands: judge excellent and people excellent 20 times,
 * judge excellent and people poor 5, judge poor and people excellent 10, both poor 15. The
 * textbook kappa: po = 0.7, pe = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.4.
 */
const SAFETY: Array<[number, number, number]> = [
  [20, 0.95, 0.92],
  [5, 0.96, 0.2],
  [10, 0.1, 0.9],
  [15, 0.3, 0.45],
];

beforeAll(async () => {
  svc = await startTestApi();
  const scores: Score[] = [];
  // Traces the scores are about, ingested like any other.
  const ids = [...HELPFUL_JUDGE.map((_, i) => `cal-help-${i}`), ...Array.from({ length: 50 }, (_, i) => `cal-safe-${i}`)];
  for (const id of ids) {
    await json(
      await svc.api('/api/traces/ingest', {
        method: 'POST',
        json: { trace_id: id, name: 'support-answer', status: 'ok', duration_ms: 10, start_time: iso(NOW - 3_600_000) },
      }),
      201,
    );
  }
  HELPFUL_JUDGE.forEach((v, i) => scores.push(score(`cal-help-${i}`, 'helpfulness_judge', v, 'eval', 'helpfulness_judge')));
  // People's helpfulness ratings arrive as feedback on the judge's score name (docs/feedback.md).
  for (const [i, v] of HELPFUL_PEOPLE.entries()) {
    await json(
      await svc.api('/api/feedback', {
        method: 'POST',
        json: { type: 'rating', trace_id: `cal-help-${i}`, value: v, name: 'helpfulness_judge', user_id: 'reviewer-1' },
      }),
      201,
    );
  }
  let t = 0;
  for (const [count, judge, person] of SAFETY) {
    for (let k = 0; k < count; k++, t++) {
      const trace = `cal-safe-${t}`;
      // Two annotators on the first trace of each kind: their mean is the people's value.
      if (k === 0) scores.push(score(trace, 'safety', person - 0.01, 'annotation', 'ann-a'), score(trace, 'safety', person + 0.01, 'annotation', 'ann-b'));
      else scores.push(score(trace, 'safety', person, 'annotation', 'ann-a'));
      scores.push(score(trace, 'safety', judge, 'eval', 'safety_judge'));
    }
  }
  // Not a judge's: an API score of the same name on the same trace.
  scores.push(score('cal-safe-0', 'safety', 0, 'api', 'someone'));
  // Outside the default 90-day window.
  scores.push(score('cal-help-0', 'helpfulness_judge', 1, 'eval', 'helpfulness_judge', 100 * 86_400_000));
  await writeScores(svc.clickhouse, svc.defaultProjectId, scores);
  // The same score written again (a retried activity) counts once.
  await writeScores(svc.clickhouse, svc.defaultProjectId, scores.slice(0, 3));
  // Through the API too: a judge score with a rule-style name and no scorer, and its human twin.
  await json(await svc.api('/api/scores', { method: 'POST', json: { trace_id: 'cal-help-0', name: 'tone', value: 0.8, source: 'eval' } }), 201);
  await json(await svc.api('/api/scores', { method: 'POST', json: { trace_id: 'cal-help-0', name: 'tone', value: 0.75, source: 'annotation' } }), 201);

  // Another project: the same trace ids and names, all in total disagreement. None of it may count.
  await svc.keyFor(OTHER);
  await writeScores(
    svc.clickhouse,
    OTHER,
    ids.flatMap((id) => [score(id, 'safety', 1, 'eval', 'safety_judge'), score(id, 'safety', 0, 'annotation', 'x')]),
  );
});
afterAll(async () => {
  await svc?.stop();
});

describe('GET /api/judges/{name}/calibration', () => {
  it("gives Pearson's r and Spearman's rho with ties, from feedback that became scores", async () => {
    const a = await json<JudgeCalibrationAnswer>(await svc.api('/api/judges/helpfulness_judge/calibration'));
    expect(a.judge).toBe('helpfulness_judge');
    expect(a.calibrations).toHaveLength(1);
    const [c] = a.calibrations;
    expect(c).toMatchObject({ score_name: 'helpfulness_judge', human_score_name: 'helpfulness_judge', pairs: 5 });
    expect(c.spearman_rho).toBeCloseTo(7.25 / 9.5, 12);
    expect(c.pearson_r).toBeCloseTo(0.054 / Math.sqrt(0.052 * 0.088), 12);
    expect(c.judge_mean).toBeCloseTo(0.24, 12);
    expect(c.human_mean).toBeCloseTo(0.28, 12);
    expect(c.mean_abs_diff).toBeCloseTo(0.08, 12);
    // The judge put every trace in the poor band, people all but one (0.5 is fair): the judge
    // agrees exactly as often as chance would, po = pe = 0.8.
    expect(c.kappa).toBe(0);
    expect(c.agreement).toBe('slight');
    expect(c.confusion[0]).toEqual([4, 1, 0, 0]);
    expect(c.summary).toBe('helpfulness_judge barely agrees with people: kappa 0.00 over 5 pairs (fewer than 30 pairs: uncertain)');
  });

  it("gives Cohen's kappa over the rating bands, with the band confusion and the words", async () => {
    const a = await json<JudgeCalibrationAnswer>(await svc.api('/api/judges/safety_judge/calibration?score_name=safety'));
    const [c] = a.calibrations;
    expect(c.pairs).toBe(50);
    expect(c.kappa).toBeCloseTo(0.4, 12);
    expect(c.band_agreement).toBeCloseTo(0.7, 12);
    // confusion[judge band][people band]: poor, fair, good, excellent.
    expect(c.confusion).toEqual([
      [15, 0, 0, 10],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [5, 0, 0, 20],
    ]);
    expect(c.agreement).toBe('fair');
    expect(c.summary).toBe('safety_judge agrees only fairly with people: kappa 0.40 over 50 pairs');
    expect(c.pearson_r).not.toBeNull();
  });

  it('compares with people scores of another name when asked (feedback ratings named `rating`)', async () => {
    await json(await svc.api('/api/feedback', { method: 'POST', json: { type: 'rating', trace_id: 'cal-help-1', thumbs: 'up' } }), 201);
    await json(await svc.api('/api/feedback', { method: 'POST', json: { type: 'rating', trace_id: 'cal-help-2', thumbs: 'down' } }), 201);
    const a = await json<JudgeCalibrationAnswer>(await svc.api('/api/judges/helpfulness_judge/calibration?human_score_name=rating'));
    expect(a.calibrations).toHaveLength(1);
    expect(a.calibrations[0]).toMatchObject({ score_name: 'helpfulness_judge', human_score_name: 'rating', pairs: 2, human_mean: 0.5 });
  });

  it("names a judge by its scores' name when they carry no scorer; an unknown judge has no calibrations", async () => {
    const tone = await json<JudgeCalibrationAnswer>(await svc.api('/api/judges/tone/calibration'));
    expect(tone.calibrations[0]).toMatchObject({ judge: 'tone', pairs: 1, pearson_r: null, spearman_rho: null, kappa: null });
    const none = await json<JudgeCalibrationAnswer>(await svc.api('/api/judges/nobody/calibration'));
    expect(none.calibrations).toEqual([]);
  });

  it('reads only the window asked for', async () => {
    const recent = await json<JudgeCalibrationAnswer>(await svc.api('/api/judges/safety_judge/calibration?range=15m'));
    expect(recent.calibrations).toEqual([]);
    const fixed = await json<JudgeCalibrationAnswer>(
      await svc.api(`/api/judges/safety_judge/calibration?start_time=${iso(NOW - 3_600_000)}&end_time=${iso(NOW)}`),
    );
    expect(fixed.calibrations[0].pairs).toBe(50);
  });

  it('refuses bad parameters with 422 naming them', async () => {
    const res = await json<{ details: Array<{ field: string }> }>(await svc.api('/api/judges/safety_judge/calibration?range=1y'), 422);
    expect(res.details.map((d) => d.field)).toEqual(['range']);
    const both = await json<{ details: Array<{ field: string }> }>(
      await svc.api(`/api/judges/safety_judge/calibration?range=7d&start_time=${iso(NOW - 1000)}`),
      422,
    );
    expect(both.details.map((d) => d.field)).toEqual(['range']);
  });
});

describe('GET /api/judges/calibration', () => {
  it('lists every judge with enough pairs, most pairs first', async () => {
    const list = await json<CalibrationList>(await svc.api('/api/judges/calibration'));
    expect(list.min_pairs).toBe(10);
    expect(list.calibrations.map((c) => [c.judge, c.score_name, c.pairs])).toEqual([['safety_judge', 'safety', 50]]);
    const all = await json<CalibrationList>(await svc.api('/api/judges/calibration?min_pairs=1'));
    expect(all.calibrations.map((c) => [c.judge, c.pairs])).toEqual([
      ['safety_judge', 50],
      ['helpfulness_judge', 5],
      ['tone', 1],
    ]);
    expect(all.truncated).toBe(false);
  });

  it('keeps projects apart', async () => {
    const other = await json<CalibrationList>(await svc.api('/api/judges/calibration?min_pairs=1', { project: OTHER }));
    expect(other.calibrations).toHaveLength(1);
    expect(other.calibrations[0]).toMatchObject({ judge: 'safety_judge', pairs: 55, band_agreement: 0 });
  });

  it('needs credentials', async () => {
    expect((await svc.api('/api/judges/calibration', { key: null })).status).toBe(401);
  });
});
