import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { FieldIssue } from '../../core/errors.js';
import type { EvalCase } from '../../core/model/case-schema.js';
import type { CasesAdded, CasesImported } from '../../core/model/dataset.js';
import type { SuiteSummary, SuiteVersion } from '../../core/model/suite.js';
import { texts } from '../fixtures/corpus/texts.js';
import { childrenOf, ingestTrace } from '../helpers/ingest-trace.js';
import { apiCaller, useTestApi, type ErrorBody } from '../helpers/test-service-hooks.js';

/**
 * Datasets from production (issue 31, docs/api.md "Datasets from production"): a trace, a span, a
 * session and a filtered batch become cases of a new suite version that record their source; CSV
 * and JSONL imports report bad rows; a version exports as JSONL, CSV and YAML and reads back.
 */

const svc = useTestApi();
const { call, ok } = apiCaller(svc);
const OTHER = 'datasets-other';

const start = Date.now() - 60_000;

/** A trace: the root answers `output` to `input`, calling the tools given (JSON arguments) under a model call. */
async function ingest(
  id: string,
  o: { name?: string; input: string; output: string; tools?: Array<[string, unknown]>; session?: string; at?: number },
  project?: string,
) {
  const at = start + (o.at ?? 0);
  const child = childrenOf(id, at);
  const spans = [
    child('llm', 5, 40, {
      name: 'plan',
      type: 'generation',
      input: 'plan the answer',
      output: 'call the tools',
      attributes: { model: 'gpt-4o', team: 'support' },
    }),
    ...(o.tools ?? []).map(([name, args], i) =>
      child(`tool-${i}`, 50 + i * 10, 5, { name, type: 'tool', input: JSON.stringify(args), output: 'ok', attributes: { tool_name: name } }),
    ),
  ];
  const body = ingestTrace(id, {
    name: o.name ?? 'support-answer',
    start: at,
    durationMs: 200,
    attributes: o.session ? { session_id: o.session } : undefined,
    root: { span_id: `${id}-root`, name: 'agent', type: 'span', input: o.input, output: o.output },
    spans,
  });
  const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body, project });
  expect(res.status, await res.clone().text()).toBe(201);
}

async function suite(name: string, project?: string, extra: Record<string, unknown> = {}): Promise<SuiteSummary> {
  return ok<SuiteSummary>(
    await call('/api/suites', { name, cases: [{ name: 'seed', input: 'hi', expected: { outputContains: 'hi' }, scorers: ['contains'] }], ...extra }, project),
    201,
  );
}

const latest = async (id: string, project?: string) => ok<SuiteVersion>(await call(`/api/suites/${id}`, undefined, project));

async function expectError(res: Response, status: number, code: string) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect((JSON.parse(text) as ErrorBody).code).toBe(code);
}

describe('cases from traces', () => {
  it('adds a trace: its input, its output expected, its tool calls as the trajectory, its source', async () => {
    await ingest('ds-trace-1', {
      input: texts.supportQuestion,
      output: texts.supportAnswer,
      tools: [
        ['lookup_order', { order_id: 'A-17', note: 'שלום 👋' }],
        ['refund', { order_id: 'A-17', amount: 12.5 }],
      ],
    });
    const s = await suite('from-one-trace');
    const added = await ok<CasesAdded>(
      await call(`/api/suites/${s.id}/cases/from-traces`, { trace_ids: ['ds-trace-1'], fields: ['input', 'output', 'trajectory'] }),
      201,
    );
    expect(added.suite).toMatchObject({ id: s.id, version: 2, case_count: 2 });
    const [c] = (await latest(s.id)).definition.cases.slice(1);
    expect(c).toEqual({
      name: 'support-answer: ds-trace-1',
      input: texts.supportQuestion,
      expected: {
        output: texts.supportAnswer,
        trajectory: {
          calls: [
            { name: 'lookup_order', args: { order_id: 'A-17', note: 'שלום 👋' } },
            { name: 'refund', args: { order_id: 'A-17', amount: 12.5 } },
          ],
        },
      },
      scorers: [
        { name: 'exactMatch', config: {} },
        { name: 'toolCalls', config: {} },
      ],
      source: { trace_id: 'ds-trace-1' },
      weight: 1,
    });
    // CRLF and the blank lines of the corpus text kept byte for byte.
    expect(c.input).toContain('\r\n\r\n');

    // Output kept only for reference, chosen attributes as metadata; the same trace again gets a name of its own.
    const again = await ok<CasesAdded>(
      await call(`/api/suites/${s.id}/cases/from-traces`, {
        trace_ids: ['ds-trace-1'],
        fields: ['input', 'output', 'metadata'],
        expected_from_output: false,
        scorers: ['contains'],
      }),
      201,
    );
    expect(again.cases[0]).toMatchObject({
      name: 'support-answer: ds-trace-1 (2)',
      expected: {},
      metadata: { trace_name: 'support-answer', output: texts.supportAnswer },
      source: { trace_id: 'ds-trace-1' },
    });
    expect((await latest(s.id)).latest_version).toBe(3);
  });

  it('adds one span: its own input and output, its source span', async () => {
    await ingest('ds-span-1', { input: 'root question', output: 'root answer' });
    const s = await suite('from-a-span');
    const added = await ok<CasesAdded>(
      await call(`/api/suites/${s.id}/cases/from-traces`, {
        span_id: 'ds-span-1-llm',
        fields: ['input', 'output', 'metadata'],
        attributes: ['team', 'absent'],
      }),
      201,
    );
    expect(added.cases).toEqual([
      {
        name: 'plan: ds-span-1-llm',
        input: 'plan the answer',
        expected: { output: 'call the tools' },
        scorers: [{ name: 'exactMatch', config: {} }],
        source: { trace_id: 'ds-span-1', span_id: 'ds-span-1-llm' },
        metadata: { trace_name: 'support-answer', span_name: 'plan', model: 'gpt-4o', attributes: { team: 'support' } },
        weight: 1,
      },
    ]);
    await expectError(await call(`/api/suites/${s.id}/cases/from-traces`, { span_id: 'no-such-span' }), 404, 'SPAN_NOT_FOUND');
  });

  it('adds a filtered batch, newest first up to the cap; a preview writes nothing', async () => {
    for (let i = 0; i < 5; i++) await ingest(`ds-batch-${i}`, { name: 'batch-weather', input: `question ${i}`, output: `answer ${i}`, at: i * 1000 });
    const s = await suite('from-a-filter');
    const body = { filter: { name: 'batch-weather' }, cap: 3 };
    const preview = await ok<CasesAdded>(await call(`/api/suites/${s.id}/cases/from-traces`, { ...body, preview: true }));
    expect(preview).toMatchObject({ suite: null, truncated: true });
    expect(preview.cases.map((c) => c.source?.trace_id)).toEqual(['ds-batch-4', 'ds-batch-3', 'ds-batch-2']);
    expect((await latest(s.id)).latest_version).toBe(1);

    const added = await ok<CasesAdded>(await call(`/api/suites/${s.id}/cases/from-traces`, body), 201);
    expect(added).toMatchObject({ suite: { version: 2, case_count: 4 }, truncated: true });
    expect((await latest(s.id)).definition.cases.map((c) => [c.input, c.expected.output])).toEqual([
      ['hi', undefined],
      ['question 4', 'answer 4'],
      ['question 3', 'answer 3'],
      ['question 2', 'answer 2'],
    ]);
    // The list's source filter selects the same production traces; an unknown source is refused.
    const production = await ok<CasesAdded>(
      await call(`/api/suites/${s.id}/cases/from-traces`, { filter: { name: 'batch-weather', source: 'production' }, cap: 3, preview: true }),
    );
    expect(production.cases.map((c) => c.source?.trace_id)).toEqual(['ds-batch-4', 'ds-batch-3', 'ds-batch-2']);
    const badSource = ((await (await call(`/api/suites/${s.id}/cases/from-traces`, { filter: { source: 'staging' } })).json()) as ErrorBody).details;
    expect((badSource as FieldIssue[]).map((p) => p.field)).toEqual(['filter.source']);
    // Every filter of GET /api/traces, checked the same way.
    const problems = ((await (await call(`/api/suites/${s.id}/cases/from-traces`, { filter: { score_below: 0.5, nmae: 'x' } })).json()) as ErrorBody).details;
    expect((problems as FieldIssue[]).map((p) => p.field).sort()).toEqual(['filter', 'filter.score_name']);
  });

  it('adds a session as one scripted conversation, oldest turn first', async () => {
    await ingest('ds-turn-1', { input: 'first turn', output: 'first answer', session: 'ds-session', at: 100 });
    await ingest('ds-turn-2', { input: texts.policyRefundsHebrew, output: 'second answer', session: 'ds-session', at: 200 });
    const s = await suite('from-a-session');
    const added = await ok<CasesAdded>(await call(`/api/suites/${s.id}/cases/from-traces`, { session_id: 'ds-session' }), 201);
    expect(added.cases[0]).toMatchObject({
      name: 'session: ds-session',
      turns: [
        { input: 'first turn', expected: { output: 'first answer' }, scorers: [{ name: 'exactMatch', config: {} }] },
        { input: texts.policyRefundsHebrew, expected: { output: 'second answer' } },
      ],
      scorers: [{ name: 'turnScores', config: {} }],
      source: { trace_id: 'ds-turn-1', session_id: 'ds-session' },
    });
  });

  it('adds the cases once when a request is sent again with its Idempotency-Key', async () => {
    await ingest('ds-retry', { input: 'retried question', output: 'retried answer' });
    const s = await suite('retried');
    const send = () =>
      svc.api(`/api/suites/${s.id}/cases/from-traces`, { method: 'POST', json: { trace_ids: ['ds-retry'] }, headers: { 'idempotency-key': 'add-ds-retry-1' } });
    const first = await ok<CasesAdded>(await send(), 201);
    const again = await send();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await ok<CasesAdded>(again, 201)).toEqual(first);
    expect((await latest(s.id)).definition.cases.map((c) => c.name)).toEqual(['seed', 'support-answer: ds-retry']);
  });

  it('keeps projects apart and refuses bodies that choose no traces or several ways', async () => {
    await ingest('ds-theirs', { name: 'batch-weather', input: 'their question', output: 'their answer' }, OTHER);
    const mine = await suite('isolated');
    const theirs = await suite('isolated', OTHER);
    await expectError(await call(`/api/suites/${mine.id}/cases/from-traces`, { trace_ids: ['ds-theirs'] }), 404, 'TRACE_NOT_FOUND');
    await expectError(await call(`/api/suites/${theirs.id}/cases/from-traces`, { trace_ids: ['ds-trace-1'] }), 404, 'SUITE_NOT_FOUND');
    const batch = await ok<CasesAdded>(await call(`/api/suites/${theirs.id}/cases/from-traces`, { filter: { name: 'batch-weather' } }, OTHER), 201);
    expect(batch.cases.map((c) => c.source?.trace_id)).toEqual(['ds-theirs']);
    for (const body of [{}, { trace_ids: ['a'], span_id: 'b' }, { trace_ids: ['a', 'b'], case_name: 'one' }]) {
      await expectError(await call(`/api/suites/${mine.id}/cases/from-traces`, body), 422, 'VALIDATION_ERROR');
    }
  });
});

describe('import and export', () => {
  const csv = [
    'name,input,expected_output,weight,team',
    `refund,"${texts.supportQuestion.replaceAll('"', '""')}",Refunded 👍,2,support`,
    'bad weight,hello,hi,heavy,support',
    'short row,only two',
    'refund,a second refund,x,1,support',
    'hebrew,שלום עולם,עולם,,sales',
  ].join('\r\n');

  it('imports CSV rows through the default mapping and names each bad row', async () => {
    const s = await suite('imported-csv', undefined, { defaultScorers: ['contains'] });
    const res = await call(`/api/suites/${s.id}/cases/import`, { format: 'csv', content: csv });
    const imported = await ok<CasesImported>(res, 201);
    expect(imported.errors.map((e) => [e.row, e.field])).toEqual([
      [2, 'weight'],
      [3, '(row)'],
      [4, 'name'],
    ]);
    expect(imported.errors[0].line).toBeGreaterThan(2);
    const cases = (await latest(s.id)).definition.cases;
    expect(cases.map((c) => c.name)).toEqual(['seed', 'refund', 'hebrew']);
    expect(cases[1]).toEqual({ name: 'refund', input: texts.supportQuestion, expected: { output: 'Refunded 👍' }, weight: 2, metadata: { team: 'support' } });
    expect(cases[2].input).toBe('שלום עולם');

    // strict: any bad row refuses the file, naming rows and lines.
    const other = await suite('imported-csv-strict', undefined, { defaultScorers: ['contains'] });
    const strict = await call(`/api/suites/${other.id}/cases/import`, { format: 'csv', content: csv, strict: true });
    expect(strict.status).toBe(422);
    const details = ((await strict.json()) as ErrorBody).details as FieldIssue[];
    expect(details.map((d) => d.field)).toEqual(['rows[2].weight', 'rows[3].(row)', 'rows[4].name']);
    expect((await latest(other.id)).latest_version).toBe(1);
  });

  it('imports JSONL with a mapping; lines that are not objects are reported', async () => {
    const s = await suite('imported-jsonl');
    const lines = [
      JSON.stringify({ q: texts.multilingual, a: 'ok', tags: ['x'] }),
      '',
      '{"q": "broken',
      '[1, 2]',
      JSON.stringify({ q: { nested: true }, a: { json: 'answer' } }),
    ].join('\n');
    const imported = await ok<CasesImported>(
      await call(`/api/suites/${s.id}/cases/import`, {
        format: 'jsonl',
        content: lines,
        mapping: { input: 'q', 'expected.output': 'a', 'metadata.tags': 'tags' },
      }),
      201,
    );
    expect(imported.errors).toEqual([
      { row: 2, line: 3, field: '(row)', message: expect.stringMatching(/^not JSON/) as unknown },
      { row: 3, line: 4, field: '(row)', message: 'must be a JSON object' },
    ]);
    expect(imported.cases).toEqual([
      {
        name: 'row 1',
        input: texts.multilingual,
        expected: { output: 'ok' },
        scorers: [{ name: 'exactMatch', config: {} }],
        metadata: { tags: ['x'] },
        weight: 1,
      },
      { name: 'row 4', input: { nested: true }, expected: { output: { json: 'answer' } }, scorers: [{ name: 'exactMatch', config: {} }], weight: 1 },
    ]);
    await expectError(await call(`/api/suites/${s.id}/cases/import`, { format: 'jsonl', content: '[1]\n' }), 422, 'VALIDATION_ERROR');
    await expectError(await call(`/api/suites/${s.id}/cases/import`, { format: 'csv', content: 'name,input\n"open,quote' }), 422, 'VALIDATION_ERROR');
  });

  it('exports a version as JSONL, CSV and YAML that read back to the same cases', async () => {
    await ingest('ds-export-1', { input: texts.supportQuestion, output: texts.policyRefundsHebrew, tools: [['lookup_order', { id: 1 }]] });
    const s = await suite('exported');
    await ok(await call(`/api/suites/${s.id}/cases/from-traces`, { trace_ids: ['ds-export-1'], fields: ['input', 'output', 'trajectory', 'metadata'] }), 201);
    const v2 = await latest(s.id);

    const file = async (format: string) => {
      const res = await call(`/api/suites/${s.id}/versions/2/export?format=${format}`);
      expect(res.status).toBe(200);
      return { text: await res.text(), type: res.headers.get('content-type') };
    };
    const jsonl = await file('jsonl');
    expect(jsonl.type).toMatch(/ndjson/);
    expect(
      jsonl.text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as EvalCase),
    ).toEqual(v2.definition.cases);
    const yaml = await file('yaml');
    expect(parseYaml(yaml.text)).toMatchObject({ name: 'exported', cases: [{ name: 'seed' }, { source: { trace_id: 'ds-export-1' } }] });

    for (const format of ['jsonl', 'csv'] as const) {
      const copy = await suite(`copy-${format}`);
      const content = (await file(format)).text;
      const back = await ok<CasesImported>(await call(`/api/suites/${copy.id}/cases/import`, { format, content: content.replace(/^.*seed.*\r?\n/m, '') }), 201);
      expect(back.errors).toEqual([]);
      expect(back.cases).toEqual(v2.definition.cases.slice(1));
    }
    await expectError(await call(`/api/suites/${s.id}/versions/9/export?format=csv`), 404, 'SUITE_NOT_FOUND');
    await expectError(await call(`/api/suites/${s.id}/versions/2/export?format=xml`), 422, 'VALIDATION_ERROR');
  });
});
