/**
 * What compiling a pattern costs, estimated from its text without compiling it. RE2 expands a
 * counted repetition into copies of what it repeats (`a{1000}` is a thousand instructions), and
 * compiling costs time in proportion (re2js: ~2.5 µs an instruction, measured: `a{1000}` written
 * 142 times, 994 characters, compiled to 142,002 instructions in ~350 ms on the event loop). So a
 * pattern is sized first, in one pass over its text, and refused when too large, before re2js
 * spends that time.
 *
 * The size is an upper estimate of the program RE2 builds: every literal, class, escape and
 * operator counts 1, a group its content plus 2 (its captures), and `{n}`, `{n,m}`, `{n,}` multiply
 * the atom or group before them by n, n + 2(m - n) or n + 1. Syntax RE2 refuses is sized as text, then refused by the
 * compile that follows.
 */
const CAP = 1e9;

export function patternSize(pattern: string): number {
  // Per open group: its running size, and the size of its last atom (what a quantifier repeats).
  const totals: number[] = [0];
  const lasts: number[] = [0];
  const add = (n: number, repeatable: boolean) => {
    const top = totals.length - 1;
    totals[top] = Math.min(CAP, totals[top] + n);
    lasts[top] = repeatable ? n : 0;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      // An escape, with its braces when it has some (\p{Greek}, \x{263a}).
      const braced = /^\\[pPx]\{[^}]*\}/.exec(pattern.slice(i, i + 64));
      i += braced ? braced[0].length - 1 : 1;
      add(1, true);
    } else if (c === '[') {
      i = classEnd(pattern, i);
      add(1, true);
    } else if (c === '(') {
      totals.push(0);
      lasts.push(0);
    } else if (c === ')') {
      if (totals.length === 1) {
        add(1, false);
        continue;
      }
      const inner = totals.pop()!;
      lasts.pop();
      add(inner + 2, true);
    } else if (c === '{') {
      const counted = /^\{(\d{1,6})(,(\d{0,6}))?\}/.exec(pattern.slice(i, i + 16));
      if (!counted) {
        add(1, true);
        continue;
      }
      const min = Number(counted[1]);
      // {n,m}: n copies and m - n optional ones (two instructions each); {n,}: n copies and a loop.
      const times = counted[2] === undefined ? min : counted[3] === '' ? min + 1 : min + 2 * Math.max(0, Number(counted[3]) - min);
      const top = totals.length - 1;
      const last = lasts[top];
      totals[top] = Math.min(CAP, totals[top] + last * Math.max(0, times - 1) + 1);
      lasts[top] = Math.min(CAP, last * Math.max(1, times));
      i += counted[0].length - 1;
    } else {
      add(1, c !== '|' && c !== '*' && c !== '+' && c !== '?');
    }
  }
  return Math.min(
    CAP,
    totals.reduce((sum, n) => sum + n, 0),
  );
}

/** The index of the `]` closing the class that opens at `start` (the text's end if none). */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  for (; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === '[' && pattern[i + 1] === ':') {
      const close = pattern.indexOf(':]', i + 2);
      if (close !== -1) i = close + 1;
    } else if (pattern[i] === ']') return i;
  }
  return pattern.length;
}
