import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessionFilters, sessionFiltersQuery, sessionHref, type SessionFilters } from '../../../ui/src/lib/sessions.js';

describe('session filters in the URL', () => {
  it('round-trips every filter through the query string, for any user id', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            user_id: fc.string({ unit: 'grapheme', minLength: 1 }).filter((s) => s.trim() === s && s !== ''),
            has_errors: fc.constant('true' as const),
            score: fc.record({
              score_name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 50 }).filter((s) => s.trim() === s && s !== ''),
              score_below: fc.double({ min: 0, max: 1, noNaN: true }).map(String),
            }),
            cursor: fc.base64String({ minLength: 4 }),
          },
          { requiredKeys: [] },
        ),
        ({ score, ...rest }) => {
          const f: SessionFilters = { ...rest, ...score };
          expect(sessionFilters(new URLSearchParams(sessionFiltersQuery(f).toString()))).toEqual(f);
        },
      ),
    );
  });

  it('drops what the API would refuse: a blank user, has_errors other than true, half a score filter', () => {
    expect(sessionFilters(new URLSearchParams('user_id=%20%20&has_errors=yes'))).toEqual({});
    // A mean-score filter needs its name and a threshold in 0..1.
    for (const q of ['score_name=helpfulness', 'score_below=0.5', 'score_name=helpfulness&score_below=1.5', 'score_name=helpfulness&score_below=x'])
      expect(sessionFilters(new URLSearchParams(q)), q).toEqual({});
    expect(sessionFilters(new URLSearchParams('score_name=helpfulness&score_below=0.5'))).toEqual({ score_name: 'helpfulness', score_below: '0.5' });
  });

  it('links a session whatever its id holds', () => {
    expect(sessionHref('会话 2/✓?x')).toBe('/sessions/%E4%BC%9A%E8%AF%9D%202%2F%E2%9C%93%3Fx');
  });
});
