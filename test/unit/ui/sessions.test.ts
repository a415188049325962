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
            cursor: fc.base64String({ minLength: 4 }),
          },
          { requiredKeys: [] },
        ),
        (f: SessionFilters) => {
          expect(sessionFilters(new URLSearchParams(sessionFiltersQuery(f).toString()))).toEqual(f);
        },
      ),
    );
  });

  it('drops what the API would refuse: a blank user, has_errors other than true', () => {
    expect(sessionFilters(new URLSearchParams('user_id=%20%20&has_errors=yes'))).toEqual({});
  });

  it('links a session whatever its id holds', () => {
    expect(sessionHref('会话 2/✓?x')).toBe('/sessions/%E4%BC%9A%E8%AF%9D%202%2F%E2%9C%93%3Fx');
  });
});
