import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareRuns, type ComparableCase, type ComparableRun } from '../../../core/evals/compare.js';
import { condenseComparison } from '../../../api/mcp/condense-comparison.js';
import { agentText, corpusTexts } from '../../helpers/corpus.js';

/** A case as a run records it: a realistic question, the agent's answer, each scorer's reason. */
function runCase(name: string, scores: Record<string, number>, output: string, reason: string): ComparableCase {
  return {
    case_name: name,
    scores,
    avg_score: Object.values(scores).reduce((a, b) => a + b, 0) / Object.keys(scores).length,
    status: 'completed',
    trace_id: `trace-${name}`,
    duration_ms: 1_200,
    cost_usd: 0.004,
    detail: {
      input: { question: `Summarize the refund policy for ${name}` },
      expected: 'A short summary citing section 4.2',
      output,
      error: null,
      details: Object.fromEntries(Object.keys(scores).map((s) => [s, { score: scores[s], reason }])),
    },
  };
}

const run = (id: string, cases: ComparableCase[]): ComparableRun => ({ run_id: id, agent_version: id, cases });

/** Every changed case reached by following next_offset from offset 0. */
function pages(cmp: ReturnType<typeof compareRuns>, limit: number, textChars: number, maxChars: number) {
  const answers = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page = condenseComparison(cmp, { limit, offset, textChars, maxChars });
    answers.push(page);
    offset = page.next_offset;
  }
  return answers;
}

describe('compare_runs condensed for a model', () => {
  const texts = corpusTexts();
  const long = texts.reduce((a, b) => (b.length > a.length ? b : a));

  it('answers a 300-case comparison with 600 KB outputs as whole JSON under its budget, worst cases first, unchanged only counted', () => {
    const names = Array.from({ length: 300 }, (_, i) => `case-${String(i).padStart(3, '0')}`);
    const baseline = run(
      'v1',
      names.map((n, i) => runCase(n, { correctness: 0.9, tool_selection: 1 }, i % 7 === 0 ? long : texts[i % texts.length], texts[(i + 3) % texts.length])),
    );
    // 40 regress (the first ten badly), 20 improve, the rest stay.
    const candidate = run(
      'v2',
      names.map((n, i) =>
        runCase(
          n,
          i < 10
            ? { correctness: 0.1, tool_selection: 0 }
            : i < 40
              ? { correctness: 0.6, tool_selection: 1 }
              : i < 60
                ? { correctness: 1, tool_selection: 1 }
                : { correctness: 0.9, tool_selection: 1 },
          i % 5 === 0 ? long : texts[(i + 1) % texts.length],
          texts[(i + 2) % texts.length],
        ),
      ),
    );
    const cmp = compareRuns(baseline, candidate, { threshold: 0.05 });
    const page = condenseComparison(cmp, { limit: 5, offset: 0, textChars: 800 });

    const json = JSON.stringify(page, null, 1);
    expect(json.length).toBeLessThan(24_000);
    expect(JSON.parse(json)).toEqual(page);
    expect(page.summary).toMatch(/^FAILED: 300 cases compared: 40 regressed, 20 improved, 0 mixed, 240 unchanged/);
    expect(page.changed_total).toBe(60);
    expect(page.case_counts).toEqual({ compared: 300, regressed: 40, improved: 20, mixed: 0, unchanged: 240 });
    expect(page.changed_cases.map((c) => c.case_name)).toEqual(['case-000', 'case-001', 'case-002', 'case-003', 'case-004']);
    expect(page.next_offset).toBe(5);
    const first = page.changed_cases[0];
    expect(first.scorer_changes.map((c) => [c.scorer, c.baseline, c.candidate, Number(c.delta.toFixed(6))])).toEqual([
      ['tool_selection', 1, 0, -1],
      ['correctness', 0.9, 0.1, -0.8],
    ]);
    expect(first.baseline_trace_id).toBe('trace-case-000');
    expect(first.candidate?.output).toMatch(/more characters\]$/);
    expect(first.candidate?.scorers.correctness.score).toBe(0.1);
    // correctness: 10 cases -0.8, 30 cases -0.3, 20 cases +0.1 -> mean of the 60 changes -0.25.
    expect(page.scorers).toEqual([
      { scorer: 'correctness', regressed: 40, improved: 20, mean_delta_of_changes: -0.25 },
      { scorer: 'tool_selection', regressed: 10, improved: 0, mean_delta_of_changes: -1 },
    ]);
  });

  it('pages through every changed case exactly once, each answer whole JSON under the budget (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            before: fc.double({ min: 0, max: 1, noNaN: true }),
            after: fc.double({ min: 0, max: 1, noNaN: true }),
            text: agentText({ maxLength: 2_000 }),
          }),
          {
            minLength: 1,
            maxLength: 60,
          },
        ),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 100, max: 2_000 }),
        (rows, limit, textChars) => {
          const names = rows.map((_, i) => `case ${i}`);
          const cmp = compareRuns(
            run(
              'a',
              rows.map((r, i) => runCase(names[i], { s: r.before }, r.text, r.text)),
            ),
            run(
              'b',
              rows.map((r, i) => runCase(names[i], { s: r.after }, r.text + r.text, r.text)),
            ),
            { threshold: 0.05 },
          );
          const answers = pages(cmp, limit, textChars, 12_000);
          const listed = answers.flatMap((a) => a.changed_cases.map((c) => c.case_name));
          const changed = cmp.cases.filter((c) => c.change !== 'unchanged').map((c) => c.case_name);
          expect([...listed].sort()).toEqual([...changed].sort());
          expect(new Set(listed).size).toBe(listed.length);
          for (const a of answers) expect(JSON.stringify(a, null, 1).length).toBeLessThanOrEqual(12_000);
          // Worst first: the regressions' deltas never rise before the improvements start.
          const deltas = answers.flatMap((a) => a.changed_cases.filter((c) => c.change === 'regressed').map((c) => c.delta));
          expect(deltas).toEqual([...deltas].sort((x, y) => x - y));
        },
      ),
      { numRuns: 60 },
    );
  });
});
