import { beforeAll, describe, expect, it } from 'vitest';
import { ScorerRefListSchema } from '../../../core/model/eval-case.js';
import { defaultScorerRegistry } from '../../../core/scoring/index.js';
import { spanMatchScorer } from '../../../core/scoring/trajectory/span-match.js';
import { buildSpanTree, type SpanTree } from '../../../core/scoring/trajectory/span-tree.js';
import { loadCorpus } from '../../helpers/corpus.js';
import { scoreTree } from './score.js';
import { corpusJsonTree, corpusOtelTree, useOtlpReceiver } from './traces.js';

// spanMatch over the corpus traces as the instrumentations emit them (through OTLP and the
// normalizer), and over 5,000 spans.

const receiver = useOtlpReceiver();
let langchain: SpanTree;
let spec: SpanTree;
beforeAll(async () => {
  const corpus = loadCorpus();
  langchain = (
    await corpusOtelTree(
      receiver,
      corpus.otel.find((t) => t.name === 'openinference')!,
    )
  ).tree;
  spec = corpusJsonTree(corpus.json.find((t) => t.name === 'spec')!).tree;
});

const checks = (tree: SpanTree, list: unknown[]) => scoreTree(spanMatchScorer, tree, { checks: list });

describe('spanMatch', () => {
  it('exists, count, every and order on a LangChain agent (OpenInference)', async () => {
    const d = await checks(langchain, [
      { select: { component: 'retrieval' }, count: 1 },
      { select: { type: 'tool', tool: 'lookup_order' } },
      { select: { status: 'error' }, every: { name: 'format_answer', depth: 1 } },
      { before: { tool: 'lookup_order' }, after: { component: 'retrieval' } },
      { select: { type: 'generation' }, every: { model: { regex: '^gpt-4o' }, attributes: { 'llm.provider': 'openai' } } },
      { select: { name: { regex: '^Vector' }, attributes: { 'openinference.span.kind': 'RETRIEVER' } } },
    ]);
    expect(d.score).toBe(1);
    expect(d.reason).toBe('all 6 checks passed: 1 span matches {component retrieval}, expected exactly 1; ...');
    expect(d.evidence[3]).toMatch(
      /^check 4 passed: lookup_order \(span 3, \+1320 ms\) \{tool = "lookup_order"\} ended before VectorStoreRetriever \(span 4, \+1620 ms\) \{component retrieval\} started$/,
    );
  });

  it('"retrieval before generation" fails where the agent called the model first, and says when each ran', async () => {
    const d = await checks(langchain, [{ before: { component: 'retrieval' }, after: { type: 'generation' } }]);
    expect(d.score).toBe(0);
    expect(d.reason).toBe(
      '0 of 1 check passed; check 1 failed: no span matching {component retrieval} ended before the first span matching {type generation}, ChatOpenAI (span 2, +20 ms), started; the first to end, VectorStoreRetriever (span 4, +1620 ms), ended at +1700 ms',
    );
    // On the SPEC trace the knowledge base is read before the final answer's model call, but not before the first.
    expect((await checks(spec, [{ before: { component: 'retrieval' }, after: { type: 'generation', name: 'llm.write-guide' } }])).score).toBe(1);
    expect((await checks(spec, [{ before: { component: 'retrieval' }, after: { type: 'generation' } }])).score).toBe(0);
  });

  it('counts and absences fail with what was found; score is the share of checks passed', async () => {
    const d = await checks(langchain, [
      { select: { type: 'tool' }, count: { max: 0 } },
      { select: { type: 'generation' }, count: { min: 3 } },
      { select: { status: 'error' }, exists: false },
      { select: { component: 'retrieval' } },
    ]);
    expect(d.score).toBe(0.25);
    expect(d.reason).toBe(
      '1 of 4 checks passed; check 1 failed: 1 span matches {type tool}, expected at most 0; the first: lookup_order (span 3, +1320 ms) (and 2 more failed)',
    );
    expect(d.evidence).toEqual([
      'check 1 failed: 1 span matches {type tool}, expected at most 0; the first: lookup_order (span 3, +1320 ms)',
      'check 2 failed: 2 spans match {type generation}, expected at least 3',
      'check 3 failed: 1 span matches {status error}, expected none; the first: format_answer (span 6, +6110 ms)',
      'check 4 passed: 1 span matches {component retrieval}',
    ]);
  });

  it('every names the first span that does not satisfy it and why; an empty selection passes and says so', async () => {
    const d = await checks(spec, [{ select: { type: 'tool' }, every: { status: 'ok' } }]);
    expect(d.reason).toBe(
      '0 of 1 check passed; check 1 failed: 2 spans match {type tool}, and get_weather (span 5, +2225 ms) does not satisfy {status ok}: status is error, not ok',
    );
    const none = await checks(spec, [{ select: { component: 'prompt' }, every: { status: 'ok' } }]);
    expect(none).toMatchObject({ score: 1, reason: 'the check passed: no span matches {component prompt}, so every one satisfies {status ok}' });
  });

  it('reads the SPEC tool selection attributes (confident-but-wrong selections, numeric predicates)', async () => {
    const d = await checks(spec, [
      { select: { component: 'routing', attributes: { selection_confidence: { gte: 0.9 }, skill_category: 'travel' } } },
      { select: { component: 'routing' }, every: { attributes: { selection_confidence: { lt: 0.5 } } } },
      { select: { attributes: { alternatives_considered: { exists: true } } } },
    ]);
    expect(d.evidence[0]).toMatch(/^check 1 passed/);
    expect(d.evidence[1]).toContain('attribute selection_confidence: 0.92 is not < 0.5');
    expect(d.evidence[2]).toMatch(/^check 3 passed/);
  });

  it('depth, input and output predicates', async () => {
    const d = await checks(spec, [
      { select: { depth: 0 }, count: 1 },
      { select: { depth: { min: 1 } }, count: 9 },
      { select: { component: 'retrieval', input: { regex: '^refund policy' }, output: { regex: 'refund' } } },
      { select: { type: 'tool', input: { regex: 'Kyōto' } }, count: 1 },
    ]);
    expect(d.evidence).toEqual(expect.arrayContaining([expect.stringMatching(/^check 1 passed/), expect.stringMatching(/^check 2 passed/)]));
    expect(d.score).toBe(1);
  });

  it('selects among 5,000 spans of distinct names by a name pattern (each distinct name searched once, off the event loop)', async () => {
    const spans = [
      { span_id: 'root', name: 'agent', type: 'span', start_time: 0, end_time: 10_000 },
      ...Array.from({ length: 5000 }, (_, i) => ({
        span_id: `s${i}`,
        parent_span_id: 'root',
        name: `step-${i}`,
        type: i % 10 === 0 ? 'tool' : 'span',
        start_time: i + 1,
        end_time: i + 2,
      })),
    ];
    const tree = buildSpanTree(spans);
    const d = await checks(tree, [
      { select: { name: { regex: '^step-\\d*7$' } }, count: 500 },
      { select: { type: 'tool', name: { regex: '0$' } }, count: 500 },
      { before: { name: 'step-1' }, after: { name: 'step-4999' } },
    ]);
    expect(d.score).toBe(1);
  });

  it('needs checks and a trace; refuses bad checks at creation with the field and why', async () => {
    await expect(checks(spec, [])).rejects.toThrow('spanMatch needs config.checks');
    await expect(scoreTree(spanMatchScorer, undefined, { checks: [{ select: {} }] })).rejects.toThrow("spanMatch needs the case's trace");
    const messages = (config: Record<string, unknown>) =>
      defaultScorerRegistry()
        .check(ScorerRefListSchema.parse([{ name: 'spanMatch', config }]))
        .map((i) => i.message);
    expect(messages({ checks: [{ select: { type: 'llm' } }] })[0]).toMatch(
      /^scorer 'spanMatch': config\.checks\.0\.select\.type\.0 Invalid option: expected one of "span"\|"generation"\|"tool"\|"retrieval"/,
    );
    expect(messages({ checks: [{ select: { name: { regex: '(a)\\1' } } }] })).toEqual([
      "scorer 'spanMatch': config.checks.0.select.name.regex a backreference (\\1) is not supported (patterns run on RE2: docs/scorers.md)",
    ]);
    expect(messages({ checks: [{ select: {}, count: 1, exists: true }] })).toEqual([
      "scorer 'spanMatch': config.checks.0 a check asserts one thing: exists, count or every (got exists and count)",
    ]);
    expect(messages({ checks: [{ before: {} }] })).toEqual(["scorer 'spanMatch': config.checks.0 an order check needs both before and after"]);
    expect(messages({ checks: [{ before: {}, after: {}, count: 1 }] })).toEqual([
      "scorer 'spanMatch': config.checks.0 an order check holds only before and after (no select, exists, count or every)",
    ]);
    expect(messages({ checks: [{ exists: true }] })).toEqual([
      "scorer 'spanMatch': config.checks.0 a check needs select (with exists, count or every), or before and after",
    ]);
    expect(messages({ checks: [{ select: { depth: { min: 3, max: 1 } } }] })[0]).toContain('config.checks.0.select.depth min must not be above max');
    expect(messages({ checks: [{ select: {}, count: {} }] })[0]).toContain('config.checks.0.count needs min, max or both');
    expect(messages({ checks: [{ select: { colour: 'red' } }] })[0]).toContain('colour');
    expect(messages({ checks: [{ select: { attributes: { k: { gt: 1, regex: 'x' } } } }] })[0]).toContain('must hold exactly one test');
  });
});
