import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { compileSafeRegex, MAX_PATTERN_SIZE, PatternError } from '../../../core/safe-regex.js';
import { PATTERN_CHECK_BUDGET, withPatternCheckBudget } from '../../../core/safe-regex/check-budget.js';
import { patternSize } from '../../../core/safe-regex/pattern-size.js';
import { cpuClock } from '../../helpers/cpu-clock.js';

/** Regular expressions as users write them: literals, classes, escapes, groups, alternation, quantifiers and counts. */
const patternArb: fc.Arbitrary<string> = fc.letrec<{ re: string; atom: string }>((tie) => ({
  re: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('atom'),
    fc.tuple(tie('re'), tie('re')).map(([a, b]) => a + b),
    fc.tuple(tie('re'), tie('re')).map(([a, b]) => `${a}|${b}`),
  ),
  atom: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('a', 'b', 'é', '😀', '.', '\\d', '\\w', '\\s', '[a-z]', '[^0-9]', '\\p{L}', '[[:alpha:]]', '^', '$', '\\b'),
    fc.tuple(tie('re'), fc.boolean()).map(([r, capture]) => (capture ? `(${r})` : `(?:${r})`)),
    fc.tuple(tie('atom'), fc.constantFrom('*', '+', '?', '*?')).map(([a, q]) => `(?:${a})${q}`),
    fc
      .tuple(tie('atom'), fc.integer({ min: 0, max: 40 }), fc.option(fc.integer({ min: 0, max: 40 })))
      .map(([a, n, m]) => `(?:${a}){${n}${m === null ? '' : `,${Math.max(n, m)}`}}`),
  ),
})).re;

describe('a pattern is sized from its text before it is compiled', () => {
  it('never much under what RE2 builds, so the size bound holds for any pattern (fast-check)', () => {
    fc.assert(
      fc.property(patternArb, (pattern) => {
        let program: number;
        try {
          program = RE2JS.compile(pattern).programSize();
        } catch {
          return; // RE2 refuses it anyway.
        }
        expect(program, pattern).toBeLessThanOrEqual(2 * patternSize(pattern) + 10);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a pattern whose counts expand it past the bound, before compiling it', () => {
    const huge = 'a{1000}'.repeat(142); // 994 characters; RE2 would build 142,002 instructions in ~350 ms
    const started = cpuClock();
    expect(() => compileSafeRegex(huge)).toThrow(PatternError);
    expect(() => compileSafeRegex(huge)).toThrow(`expand it to about ${patternSize(huge)} instructions, at most ${MAX_PATTERN_SIZE}`);
    expect(started.ms()).toBeLessThan(100);
    // What people write still compiles: order numbers, emails, dates, long words of any script.
    for (const ok of ['#\\d{5}', '[\\w.+-]+@[\\w-]+\\.[\\w.]+', '\\d{4}-\\d{2}-\\d{2}', '\\p{L}{1,64}', 'a{1000}b{1000}c{1000}'])
      expect(compileSafeRegex(ok).source).toBe(ok);
  });

  it("charges one request's checks to its budget, and refuses what is past it", () => {
    const pattern = 'x{1000}y{1000}'; // ~2,000 instructions
    const perPattern = patternSize(pattern) + 10;
    const fits = Math.floor(PATTERN_CHECK_BUDGET / perPattern);
    withPatternCheckBudget(() => {
      for (let i = 0; i < fits; i++) compileSafeRegex(pattern);
      expect(() => compileSafeRegex(pattern)).toThrow("this request's patterns together are too large to check");
      // Spent: even a small pattern is refused for the rest of this request.
      expect(() => compileSafeRegex('abc')).toThrow(PatternError);
    });
    // Another request starts with a full budget; outside any request nothing is counted.
    withPatternCheckBudget(() => expect(compileSafeRegex(pattern).source).toBe(pattern));
    for (let i = 0; i < fits + 5; i++) compileSafeRegex(pattern);
  });
});
