import { describe, expect, it } from 'vitest';
import {
  compileSafeRegex,
  flagsProblem,
  MAX_PATTERN_LENGTH,
  MAX_SCAN_CHARS,
  PatternError,
  patternProblem,
  SCAN_WORK_BUDGET,
} from '../../../core/safe-regex.js';

/** The first match as [index, text], or null; what `RegExp.prototype.exec` would say. */
function first(pattern: string, text: string, flags = ''): [number, string] | null {
  const { match } = compileSafeRegex(pattern, flags).search(text);
  return match ? [match.index, text.slice(match.index, match.index + match.length)] : null;
}

describe('compileSafeRegex: common patterns behave as JavaScript RegExp does', () => {
  const cases: Array<[string, string, string]> = [
    ['#\\d{5}', 'Order #12345 shipped', ''],
    ['\\d{4}-\\d{2}-\\d{2}', 'on 2024-05-01.', ''],
    ['^hello', 'hello world', ''],
    ['world$', 'hello world', ''],
    ['^b', 'a\nb', ''],
    ['^b', 'a\nb', 'm'],
    ['a$', 'a\nb', 'm'],
    ['a.b', 'a\nb', ''],
    ['a.b', 'a\nb', 's'],
    ['HELLO', 'hello', ''],
    ['HELLO', 'hello', 'i'],
    ['\\bcat\\b', 'concat cat', ''],
    ['[A-Z][a-z]+', 'hi Paris', ''],
    ['[^a-z\\s]+', 'abc DEF', ''],
    ['\\w+@\\w+\\.com', 'mail ann@example.com now', ''],
    ['colou?r', 'the color red', ''],
    ['(?:ab)+', 'xxababab', ''],
    ['a+?', 'aaa', ''],
    ['(?<year>\\d{4})', 'in 1999', ''],
    ['"status":\\s*"ok"', '{"status": "ok"}', ''],
    ['\\u00e9t\\u00e9', 'un été', ''],
    ['\\u{1F600}', 'smile 😀!', 'u'],
    ['\\uD83D\\uDE00', 'smile 😀!', ''],
    ['\\x41\\cJ', 'xA\n', ''],
    ['[^]', 'x', ''],
    ['café', 'CAFÉ au lait', 'i'],
    ['b', '😀b', ''],
    ['\\/api\\/v\\d', 'GET /api/v2/x', ''],
    ['cat|dog', 'hotdog', ''],
  ];
  it.each(cases)('/%s/%s on %j', (pattern, text, flags) => {
    const js = new RegExp(pattern, flags).exec(text);
    expect(first(pattern, text, flags)).toEqual(js ? [js.index, js[0]] : null);
  });

  it('matches nothing with an empty class, as JavaScript does', () => {
    expect(first('a[]', 'a]')).toBeNull();
  });

  it('reports offsets in UTF-16 code units, as String.prototype.slice counts', () => {
    expect(compileSafeRegex('needle').search('😀😀needle').match).toEqual({ index: 4, length: 6 });
  });

  it('is stateless: the same compiled pattern answers alike every time', () => {
    const re = compileSafeRegex('a');
    expect(re.search('xa').match).toEqual(re.search('xa').match);
  });
});

describe('compileSafeRegex: what RE2 cannot run is refused at the door, named', () => {
  const refused: Array<[string, RegExp]> = [
    ['(?<=\\$)\\d+', /^lookbehind is not supported \(patterns run on RE2: docs\/scorers\.md\)$/],
    ['(?<!x)y', /^lookbehind is not supported/],
    ['foo(?=bar)', /^lookahead is not supported/],
    ['foo(?!bar)', /^lookahead is not supported/],
    ['(a)\\1', /^a backreference \(\\1\) is not supported/],
    ['(?<q>a)\\k<q>', /^a named backreference/],
    ['(?P<q>a)(?P=q)', /^a named backreference/],
    ['a++', /^a possessive quantifier \(\+\+\) is not supported/],
    ['a*+', /^a possessive quantifier/],
    ['a{2}+', /^a possessive quantifier/],
    ['(?>a+)b', /^an atomic group/],
    ['(?(1)a|b)', /^a conditional group/],
    ['(a(?R)?b)', /^recursion is not supported/],
    ['(a(?1)?b)', /^recursion is not supported/],
    ['(unclosed', /^is not a valid regular expression: missing closing \): `\(unclosed` \(patterns run on RE2/],
    ['\\e', /^is not a valid regular expression: invalid escape sequence/],
    ['a{5000}', /^is not a valid regular expression: invalid repeat count/],
    ['x'.repeat(MAX_PATTERN_LENGTH + 1), new RegExp(`^is longer than ${MAX_PATTERN_LENGTH} characters$`)],
  ];
  it.each(refused)('refuses %j', (pattern, why) => {
    expect(patternProblem(pattern)).toMatch(why);
    expect(() => compileSafeRegex(pattern)).toThrow(PatternError);
  });

  it('keeps what only looks like a refused construct', () => {
    for (const pattern of ['(?<name>x)', '(?:a)+', '(?i)abc', '(?-i:a)', 'a+?', 'a{2}?', '[(?=]', '\\(?=']) {
      expect(patternProblem(pattern), pattern).toBeUndefined();
    }
  });

  it('takes the flags i, m, s and u, and refuses the others by name', () => {
    expect(flagsProblem('imsu')).toBeUndefined();
    expect(flagsProblem('v')).toMatch(/^flag v \(Unicode sets\) is not supported/);
    expect(flagsProblem('g')).toMatch(/may hold only the flags i, m, s and u/);
    expect(flagsProblem('y')).toMatch(/may hold only the flags/);
    expect(flagsProblem('ii')).toBe('holds the flag i twice');
    expect(() => compileSafeRegex('a', 'g')).toThrow(PatternError);
  });
});

describe('compileSafeRegex: hostile patterns run in linear time', () => {
  it('answers (a+)+b on 100,000 a then c (exponential for a backtracking engine) correctly', () => {
    const text = `${'a'.repeat(100_000)}c`;
    expect(compileSafeRegex('(a+)+b').search(text)).toEqual({ match: null, scanned: text.length });
    expect(compileSafeRegex('(a+)+c').search(text).match).toEqual({ index: 0, length: text.length });
    expect(compileSafeRegex('(a|aa)+$').search(text).match).toBeNull();
    expect(compileSafeRegex('^(\\w+\\s?)+$').search(`${'word '.repeat(20_000)}!`).match).toBeNull();
  });

  it('reads at most the work budget over the program size, never past MAX_SCAN_CHARS', () => {
    const small = compileSafeRegex('needle');
    expect(small.scanLimit).toBeLessThanOrEqual(MAX_SCAN_CHARS);
    const big = compileSafeRegex(`(?:${Array.from({ length: 20 }, (_, i) => `w${i}[a-z]{1,9}`).join('|')})$`);
    expect(big.scanLimit).toBeLessThan(small.scanLimit);
    expect(big.scanLimit).toBeLessThanOrEqual(SCAN_WORK_BUDGET / 20);
    const text = `${'x'.repeat(big.scanLimit)}w1abc`;
    expect(big.search(text)).toEqual({ match: null, scanned: big.scanLimit });
    expect(big.search(text.slice(-10)).match).not.toBeNull();
  });

  it('does not take the cut for the end of the text: `$` and `\\z` match only where the text really ends', () => {
    const re = compileSafeRegex(`(?:${Array.from({ length: 20 }, (_, i) => `w${i}[a-z]{1,9}`).join('|')}|done)$`);
    const cutAtDone = `${'x'.repeat(re.scanLimit - 4)}done and more after the cut`;
    expect(re.search(cutAtDone)).toEqual({ match: null, scanned: re.scanLimit });
    expect(re.search(cutAtDone.slice(0, re.scanLimit))).toEqual({ match: { index: re.scanLimit - 4, length: 4 }, scanned: re.scanLimit });
    const anchored = compileSafeRegex(`(?:${Array.from({ length: 20 }, (_, i) => `w${i}[a-z]{1,9}`).join('|')}|done)\\z`);
    expect(anchored.search(cutAtDone).match).toBeNull();
    // A match inside what was read is still found, and a class never matches past the cut.
    expect(compileSafeRegex(`(?:${Array.from({ length: 20 }, (_, i) => `w${i}[a-z]{1,9}`).join('|')}|x{3})`).search(cutAtDone).match).toEqual({
      index: 0,
      length: 3,
    });
    const anyTail = compileSafeRegex(`(?:${Array.from({ length: 20 }, (_, i) => `w${i}[a-z]{1,9}`).join('|')}|done.)`);
    expect(anyTail.search(cutAtDone).match).toBeNull();
  });

  it('never cuts a surrogate pair when it stops reading', () => {
    const re = compileSafeRegex(`(?:${Array.from({ length: 20 }, (_, i) => `w${i}[a-z]{1,9}`).join('|')})`);
    const text = `${'x'.repeat(re.scanLimit - 1)}😀`;
    expect(re.search(text).scanned).toBe(re.scanLimit - 1);
  });
});
