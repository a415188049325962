import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseFailure } from '../../../core/failures/analyze.js';
import { errorTypeOfMessage, exampleText, NORMALIZED_MAX, normalizeFailureText } from '../../../core/failures/normalize.js';
import { rootCause, type FailureSpan } from '../../../core/failures/root-cause.js';
import { groupFailures, type Failure } from '../../../core/failures/signature.js';
import type { CaseResultView, RunCase } from '../../../core/model/eval-run.js';
import { hostileStrings, texts } from '../../fixtures/corpus/texts.js';
import { runCaseOf } from '../../helpers/run-case.js';

describe('normalizeFailureText', () => {
  it('makes occurrences of one failure read the same', () => {
    const a = normalizeFailureText('timeout after 3012 ms calling https://api.example.com/v1/search?q=kyoto (request 7f3a9c2e-1b4d-4e8f-9a6b-0c1d2e3f4a5b)');
    const b = normalizeFailureText('timeout after 2990 ms calling https://api.example.com/v1/other (request 0c1d2e3f-4a5b-4e8f-9a6b-7f3a9c2e1b4d)');
    expect(a).toBe(b);
    expect(a).toBe('timeout after <n> ms calling <url> (request <id>)');
    expect(normalizeFailureText(`expected 'Paris', got "Lyon"\n\n  for user ana@example.org, trace 4bf92f3577b34da6`)).toBe(
      "expected '…', got '…' for user <email>, trace <hex>",
    );
  });

  it('keeps what tells failures apart', () => {
    expect(normalizeFailureText('rate limited')).not.toBe(normalizeFailureText('payment declined'));
    expect(normalizeFailureText('call gpt-4o')).toBe('call gpt-<n>o');
  });

  it('is bounded and well formed on the corpus, hostile strings and any text', () => {
    const corpus = [...Object.values(texts), ...hostileStrings().map((h) => h.text)];
    const check = (text: string) => {
      const once = normalizeFailureText(text);
      expect(once.length).toBeLessThanOrEqual(NORMALIZED_MAX);
      expect(once).toBe(normalizeFailureText(text));
      if (text.isWellFormed()) expect(once.isWellFormed()).toBe(true);
    };
    for (const text of corpus) check(text);
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 3000 }), check), { numRuns: 300 });
  });

  it('reads any text the same whatever number ends it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 100 }), fc.nat(9_999_999), fc.nat(9_999_999), (text, a, b) => {
        expect(normalizeFailureText(`${text} ${a}`)).toBe(normalizeFailureText(`${text} ${b}`));
      }),
      { numRuns: 300 },
    );
  });

  it('reads an error type before the first colon, never inside a URL', () => {
    expect(errorTypeOfMessage('agent answered 500: upstream model overloaded')).toBe('agent answered <n>');
    expect(errorTypeOfMessage('timeout calling https://a.example/x')).toBeNull();
    expect(errorTypeOfMessage(': nothing before')).toBeNull();
    expect(exampleText(texts.travelAnswer, 50).length).toBeLessThanOrEqual(51);
    expect(exampleText('😀'.repeat(30), 5).isWellFormed()).toBe(true);
  });
});

const span = (id: string, parent: string, name: string, error = false, start = 0, message = ''): FailureSpan => ({
  span_id: id,
  parent_span_id: parent,
  name,
  error,
  message,
  error_type: null,
  start_ms: start,
});

describe('rootCause', () => {
  it('is the earliest failing span with no failing child, by path from the root', () => {
    const spans = [
      span('r', '', 'research-agent', true),
      span('a', 'r', 'plan 1', false, 1),
      span('s', 'r', 'search_web', true, 5, 'timeout'),
      span('t', 's', 'http GET', true, 6, 'socket hang up'),
      span('m', 'r', 'chat gpt-4o', true, 9, 'rate limited'),
    ];
    const cause = rootCause(spans, false)!;
    expect(cause.span.span_id).toBe('t');
    expect(cause.path).toBe('research-agent > search_web > http GET');
    expect(rootCause(spans, true)!.path).toBe('search_web > http GET');
  });

  it('leaves a failing root out when asked, and survives cycles and orphans', () => {
    expect(rootCause([span('r', '', 'eval case: x', true)], true)).toBeNull();
    expect(rootCause([span('a', 'b', 'a', true), span('b', 'a', 'b', false)], false)!.path).toBe('b > a');
    expect(rootCause([span('x', 'missing', 'orphan', true)], false)!.path).toBe('orphan');
    const chain = Array.from({ length: 100 }, (_, i) => span(`s${i}`, i ? `s${i - 1}` : '', `step ${i}`, i === 99));
    expect(rootCause(chain, false)!.path.split(' > ')).toHaveLength(32);
  });
});

describe('groupFailures', () => {
  const failure = (message: string, i: number): Failure => ({
    signature: { kind: 'span_error', error_type: null, scorer: null, span_path: 'agent > tool', message: normalizeFailureText(message) },
    example: { trace_id: `t${i}`, message },
  });

  it('gives the same groups, counts and order whatever order the failures come in', () => {
    const messages = ['timeout after 1 ms', 'timeout after 2 ms', 'declined', 'rate limited', 'declined', 'timeout after 9 ms'];
    const base = groupFailures(messages.map(failure)).map((g) => [g.key, g.count]);
    expect(base.map(([, n]) => n)).toEqual([3, 2, 1]);
    fc.assert(
      fc.property(fc.shuffledSubarray(messages.map(failure), { minLength: messages.length }), (shuffled) => {
        expect(groupFailures(shuffled).map((g) => [g.key, g.count])).toEqual(base);
      }),
    );
  });

  it('keeps five examples per group', () => {
    const groups = groupFailures(Array.from({ length: 12 }, (_, i) => failure(`timeout after ${i} ms`, i)));
    expect(groups).toHaveLength(1);
    expect(groups[0].count).toBe(12);
    expect(groups[0].examples.map((e) => e.trace_id)).toEqual(['t0', 't1', 't2', 't3', 't4']);
  });
});

describe('caseFailure', () => {
  const runCase: RunCase = runCaseOf('c', ['contains'], {
    scorers: [
      { name: 'contains', config: {} },
      { name: 'exactMatch', config: {}, minScore: 0.9 },
    ],
  });
  const view = (details: CaseResultView['details'], error?: string): CaseResultView => ({
    case_index: 0,
    case_name: 'c',
    status: 'failed',
    scores: {},
    avg_score: 0,
    passed: false,
    duration_ms: 1,
    details,
    trace_id: 't',
    output: null,
    trials: [{ trial: 0, status: 'failed', ...(error ? { error } : {}) } as CaseResultView['trials'][number]],
  });

  it('names the first scorer under its own minimum, in the case order', () => {
    const f = caseFailure(
      view({ contains: { score: 0.8, reason: 'ok', evidence: [] }, exactMatch: { score: 0.85, reason: 'first difference at character 12', evidence: [] } }),
      runCase,
      0.7,
      undefined,
    );
    expect(f.signature).toEqual({ kind: 'scorer', error_type: null, scorer: 'exactMatch', span_path: null, message: 'first difference at character <n>' });
  });

  it("takes the agent's error first, with the failing span of the trace", () => {
    const spans = [span('root', '', 'eval case: c', true), span('call', 'root', 'agent call', true, 1, 'agent answered 502')];
    const f = caseFailure(view({}, 'agent answered 502: bad gateway'), runCase, 0.7, spans);
    expect(f.signature).toEqual({
      kind: 'agent_error',
      error_type: 'agent answered <n>',
      scorer: null,
      span_path: 'agent call',
      message: 'agent answered <n>: bad gateway',
    });
    expect(f.example).toEqual({ trace_id: 't', case_index: 0, case_name: 'c', message: 'agent answered 502: bad gateway' });
  });
});
