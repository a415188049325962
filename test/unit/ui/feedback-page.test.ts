import { describe, expect, it } from 'vitest';
import {
  categoryLabels,
  completionScores,
  feedbackHref,
  feedbackSummary,
  feedbackTraces,
  givenApiQuery,
  parseFeedbackState,
  rootSpan,
  scoreHint,
  scoreInput,
} from '../../../ui/src/lib/feedback.js';
import type { Feedback, ScoreConfig } from '../../../ui/src/lib/types.js';

const stars: ScoreConfig = { name: 'stars', type: 'numeric', min: 1, max: 5, categories: null, description: null };
const safe: ScoreConfig = { name: 'safe', type: 'boolean', min: 0, max: 1, categories: null, description: null };
const tone: ScoreConfig = { name: 'tone', type: 'categorical', min: 0, max: 1, categories: { bad: 0, ok: 0.5, good: 1 }, description: null };

describe('the /feedback page state in the URL', () => {
  it('round-trips each tab with only its own keys', () => {
    const queue = parseFeedbackState(new URLSearchParams('queue=q1&item=i1&type=rating'));
    expect(queue).toMatchObject({ tab: 'queues', queue: 'q1', item: 'i1' });
    expect(feedbackHref(queue)).toBe('/feedback?queue=q1&item=i1');
    const compare = parseFeedbackState(new URLSearchParams('tab=compare&status=answered&comparison=c1&queue=q1'));
    expect(feedbackHref(compare)).toBe('/feedback?tab=compare&status=answered&comparison=c1');
    const given = parseFeedbackState(new URLSearchParams('tab=given&type=correction&trace=t-1&source=web-ui&range=7d&cursor=abc'));
    expect(given.given).toEqual({ type: 'correction', trace: 't-1', source: 'web-ui', range: '7d', cursor: 'abc' });
    expect(feedbackHref(given)).toBe('/feedback?tab=given&type=correction&trace=t-1&source=web-ui&range=7d&cursor=abc');
    expect(feedbackHref(parseFeedbackState(new URLSearchParams()))).toBe('/feedback');
  });

  it('drops values that make no sense', () => {
    const s = parseFeedbackState(new URLSearchParams('tab=nope&queue=%3Cx%3E&type=vote&range=2y&from=yesterday&cursor=%3C'));
    expect(s).toEqual({ tab: 'queues', queue: undefined, item: undefined, status: 'pending', comparison: undefined, given: {} });
  });

  it('turns the given-feedback filters into the API query', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    expect(Object.fromEntries(givenApiQuery({ type: 'rating', trace: 't1', user: 'u', range: '24h' }, now))).toEqual({
      limit: '25',
      type: 'rating',
      trace_id: 't1',
      user_id: 'u',
      from: '2026-02-28T12:00:00.000Z',
    });
    expect(Object.fromEntries(givenApiQuery({ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', cursor: 'c' }, now))).toEqual({
      limit: '25',
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-01-02T00:00:00.000Z',
      cursor: 'c',
    });
  });
});

describe('queue scores from the review form', () => {
  it('converts each kind of score and leaves empty ones out', () => {
    expect(completionScores([stars, safe, tone], { stars: 4, safe: 'false', tone: 'good' })).toEqual({
      scores: { stars: 4, safe: false, tone: 'good' },
      problems: [],
    });
    expect(completionScores([stars, safe], { stars: null, safe: '' })).toEqual({ scores: {}, problems: [] });
  });

  it('names every value the queue would refuse', () => {
    expect(scoreInput(stars, '7')).toEqual({ problem: 'stars: give a number from 1 to 5' });
    expect(completionScores([stars, tone], { stars: '0', tone: 'great' }).problems).toEqual([
      'stars: give a number from 1 to 5',
      'tone: choose one of bad, ok, good',
    ]);
  });
});

describe('reading traces and feedback', () => {
  it('finds the root span: the first whose parent is not in the trace', () => {
    expect(
      rootSpan([
        { span_id: 'b', parent_span_id: 'a' },
        { span_id: 'c', parent_span_id: 'b' },
      ])?.span_id,
    ).toBe('b');
    expect(
      rootSpan([
        { span_id: 'a', parent_span_id: null },
        { span_id: 'b', parent_span_id: 'a' },
      ])?.span_id,
    ).toBe('a');
    expect(rootSpan([])).toBeNull();
  });

  it('summarizes each kind of feedback and lists the traces it is about', () => {
    const common = {
      id: 'f',
      trace_id: 't1',
      span_id: null,
      user_id: null,
      user_name: null,
      source: null,
      comparison_id: null,
      queue_item_id: null,
      score_ids: [],
      created_at: '2026-01-01T00:00:00Z',
    };
    const rating: Feedback = { ...common, type: 'rating', rating: { name: 'rating', value: 1, thumbs: 'up', comment: 'nice' } };
    expect(feedbackSummary(rating)).toBe('rating: thumbs up. nice');
    const correction: Feedback = { ...common, type: 'correction', correction: { original: 'Lyon', corrected: 'Paris' } };
    expect(feedbackSummary(correction)).toBe('corrected to "Paris"');
    const pref: Feedback = {
      ...common,
      type: 'preference',
      preference: { prompt: 'q', chosen: 'B out', rejected: 'A out', reason: null, tie: false, chosen_trace_id: 'tb', rejected_trace_id: 'ta' },
    };
    expect(feedbackSummary(pref)).toBe('preferred "B out" over "A out"');
    expect(feedbackTraces(pref)).toEqual(['t1', 'tb', 'ta']);
  });
});

describe('categorical choices', () => {
  it('are offered from the lowest stored value to the highest, whatever order the map comes in', () => {
    // PostgreSQL's jsonb answers a map's keys shortest first: {"ok": 0.5, "bad": 0, "good": 1}.
    const stored: ScoreConfig = { ...tone, categories: JSON.parse('{"ok": 0.5, "bad": 0, "good": 1}') as Record<string, number> };
    expect(categoryLabels(stored)).toEqual(['bad', 'ok', 'good']);
    expect(scoreHint(stored)).toBe('bad / ok / good');
    expect(completionScores([stored], { tone: 'great' }).problems).toEqual(['tone: choose one of bad, ok, good']);
    expect(categoryLabels({ categories: { b: 0.5, a: 0.5, low: 0 } })).toEqual(['low', 'a', 'b']);
  });
});
