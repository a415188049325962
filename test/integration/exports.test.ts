import fs from 'node:fs';
import path from 'node:path';
import { parse as parseCsvSync } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { exportInput, exportOutput, exportTraceId, fillExportSpans, SPANS_PER_TRACE } from '../../bench/export-data.js';
import { hostileStrings, longAnswer } from '../fixtures/corpus/texts.js';
import { eventually } from '../helpers/eventually.js';
import { startTestApi, type TestApi } from '../helpers/server.js';
import { startApiOnStores } from '../helpers/api-on-stores.js';
import { parseJson, runCli } from '../cli/run-cli.js';

/**
 * Bulk export (issue 31) through the real API on embedded chDB and PostgreSQL: texts come back
 * byte for byte in JSON Lines and CSV (read with a real CSV parser), cursors resume exactly,
 * projects stay apart, and the CLI pages through VOLUME spans written by the batch writer. A million
 * spans streamed with bounded memory, and Parquet read back by ClickHouse: exports-million.test.ts.
 */
const VOLUME = 30_000;
const VOLUME_PROJECT = 'export-volume';

let svc: TestApi;
let volumeKey: string;
let ch: ClickHouse;

const texts = [...hostileStrings().filter((s) => s.wellFormed), { name: '600 KB answer', text: longAnswer(), wellFormed: true }];
const base = Date.now() - 60_000;

interface ExportedSpan {
  trace_id: string;
  span_id: string;
  input: string;
  output: string;
  start_time: string;
  attributes: Record<string, string> | string;
}

async function exportText(kind: string, query: string, init: { key?: string; project?: string } = {}) {
  const res = await svc.api(`/api/exports/${kind}?${query}`, init);
  return { res, text: await res.text() };
}

const jsonLines = (text: string) =>
  text === ''
    ? []
    : text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as ExportedSpan);

beforeAll(async () => {
  svc = await startTestApi();
  const spans = texts.map((t, i) => ({
    span_id: `span-${String(i).padStart(3, '0')}`,
    name: t.name,
    type: 'generation',
    start_time: base + i,
    end_time: base + i + 5,
    input: t.text,
    output: `${t.text}\r\n\r\n${t.name}`,
    attributes: { note: t.text.slice(0, 2000) },
  }));
  const res = await svc.api('/api/traces/ingest', {
    method: 'POST',
    json: { trace_id: 'corpus-trace', name: 'corpus', status: 'ok', duration_ms: 100, start_time: base, spans },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const score = await svc.api('/api/scores', {
    method: 'POST',
    json: { trace_id: 'corpus-trace', name: 'quality', value: 0.5, reason: texts[0].text, evidence: texts.slice(1, 4).map((t) => t.text) },
  });
  expect(score.status).toBe(201);
  // The volume case, written with the bench's generator through a second connection to the service's chDB.
  volumeKey = await svc.keyFor(VOLUME_PROJECT);
  ch = await connectClickHouse({ dataDir: svc.dataDir });
  await fillExportSpans(createAnalyticsStore(ch), VOLUME_PROJECT, VOLUME);
}, 300_000);

afterAll(async () => {
  await ch?.close();
  await svc?.stop();
});

describe('texts round trip byte for byte', () => {
  it('JSON Lines: every corpus text, blank lines, CRLF, NUL, emoji, RTL and a 600 KB answer', async () => {
    const { res, text } = await exportText('spans', 'format=jsonl&trace_id=corpus-trace');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    expect(res.headers.get('x-export-rows')).toBe(String(texts.length));
    expect(res.headers.get('x-next-cursor')).toBeNull();
    const rows = jsonLines(text);
    expect(rows.map((r) => r.span_id)).toEqual(texts.map((_, i) => `span-${String(i).padStart(3, '0')}`));
    rows.forEach((r, i) => {
      expect(r.input, texts[i].name).toBe(texts[i].text);
      expect(r.output, texts[i].name).toBe(`${texts[i].text}\r\n\r\n${texts[i].name}`);
      expect((r.attributes as Record<string, string>).note).toBe(texts[i].text.slice(0, 2000));
    });
  });

  it('CSV: RFC 4180, read back by a CSV parser, the same texts', async () => {
    const { res, text } = await exportText('spans', 'format=csv&trace_id=corpus-trace');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(text.startsWith('"trace_id","span_id",')).toBe(true);
    const rows: ExportedSpan[] = parseCsvSync(text, { columns: true, record_delimiter: '\r\n' });
    expect(rows).toHaveLength(texts.length);
    rows.forEach((r, i) => {
      expect(r.input, texts[i].name).toBe(texts[i].text);
      expect(r.output, texts[i].name).toBe(`${texts[i].text}\r\n\r\n${texts[i].name}`);
      expect((JSON.parse(r.attributes as string) as Record<string, string>).note).toBe(texts[i].text.slice(0, 2000));
    });
  });

  it('scores and traces export with their texts too', async () => {
    const scores = jsonLines((await exportText('scores', 'trace_id=corpus-trace')).text) as unknown as Array<{ reason: string; evidence: string[] }>;
    expect(scores).toHaveLength(1);
    expect(scores[0].reason).toBe(texts[0].text);
    expect(scores[0].evidence).toEqual(texts.slice(1, 4).map((t) => t.text));
    const csv: Array<{ evidence: string }> = parseCsvSync((await exportText('scores', 'format=csv&trace_id=corpus-trace')).text, { columns: true });
    expect(JSON.parse(csv[0].evidence)).toEqual(texts.slice(1, 4).map((t) => t.text));
    const traces = jsonLines((await exportText('traces', 'trace_id=corpus-trace')).text) as unknown as Array<{ name: string; span_count: number }>;
    expect(traces).toEqual([expect.objectContaining({ name: 'corpus', span_count: texts.length })]);
  });
});

describe('cursors, limits and refusals', () => {
  it('records each export in the audit log', async () => {
    await exportText('scores', 'format=csv&trace_id=corpus-trace');
    const audit = await eventually(async () => {
      const page = (await (await svc.api('/api/audit?action=data.exported&limit=50')).json()) as {
        entries: Array<{ target: string; details: Record<string, unknown> }>;
      };
      const entry = page.entries.find((e) => e.target === 'scores' && e.details.format === 'csv');
      expect(entry).toBeDefined();
      return entry!;
    });
    expect(audit.details).toMatchObject({ kind: 'scores', rows: 1, sent_whole: true, last: true, resumed: false });
  });

  it('resumes exactly where the last response ended, for every kind', async () => {
    for (const kind of ['spans', 'traces'] as const) {
      const whole = jsonLines((await exportText(kind, 'limit=1000', { key: volumeKey, project: VOLUME_PROJECT })).text);
      const pieces: ExportedSpan[] = [];
      let cursor: string | null = null;
      do {
        const { res, text } = await exportText(kind, `limit=70${cursor ? `&cursor=${cursor}` : ''}`, { key: volumeKey, project: VOLUME_PROJECT });
        const rows = jsonLines(text);
        expect(rows.length).toBe(Number(res.headers.get('x-export-rows')));
        pieces.push(...rows);
        cursor = pieces.length < 1000 ? res.headers.get('x-next-cursor') : null;
      } while (cursor);
      expect(pieces.slice(0, 1000)).toEqual(whole);
    }
  });

  it('refuses bad input with the SPEC bodies', async () => {
    const spansCursor = (await exportText('spans', 'limit=1', { key: volumeKey, project: VOLUME_PROJECT })).res.headers.get('x-next-cursor');
    const cases: Array<[string, string, number, string]> = [
      ['spans', 'format=xml', 422, 'format'],
      ['spans', 'limit=0', 422, 'limit'],
      ['spans', 'limit=1000001', 422, 'limit'],
      ['spans', 'modle=gpt-4o', 422, ''],
      ['spans', 'start_time=yesterday', 422, 'start_time'],
      ['scores', `cursor=${spansCursor}`, 422, 'cursor'],
      ['spans', 'cursor=not-a-cursor', 422, 'cursor'],
    ];
    for (const [kind, query, status, field] of cases) {
      const { res, text } = await exportText(kind, query);
      expect(res.status, query).toBe(status);
      const body = JSON.parse(text) as { code: string; details: Array<{ field: string }> };
      expect(body.code).toBe('VALIDATION_ERROR');
      if (field) expect(body.details.map((d) => d.field)).toContain(field);
    }
    const parquet = await exportText('spans', 'format=parquet');
    expect(parquet.res.status).toBe(400);
    const refusal = JSON.parse(parquet.text) as { status: number; error: string };
    expect(refusal.status).toBe(400);
    expect(refusal.error).toContain('POST /api/exports');
    expect((await svc.api('/api/exports/spans', { key: null })).status).toBe(401);
  });

  it("keeps projects apart: another project's rows and jobs are not there", async () => {
    const mine = jsonLines((await exportText('spans', 'limit=1', { key: volumeKey, project: VOLUME_PROJECT })).text);
    expect(mine[0].trace_id).toMatch(/^ex-/);
    const corpusFromVolume = await exportText('spans', 'trace_id=corpus-trace', { key: volumeKey, project: VOLUME_PROJECT });
    expect(corpusFromVolume.res.headers.get('x-export-rows')).toBe('0');
    expect(corpusFromVolume.text).toBe('');
    const job = (await (await svc.api('/api/exports', { method: 'POST', json: { kind: 'scores', format: 'jsonl' } })).json()) as { id: string };
    expect((await svc.api(`/api/exports/${job.id}`, { key: volumeKey, project: VOLUME_PROJECT })).status).toBe(404);
    expect((await svc.api(`/api/exports/${job.id}/download`, { key: volumeKey, project: VOLUME_PROJECT })).status).toBe(404);
  });
});

/** Checks each row against the generator as it arrives; keeps nothing but counts. */
function checkVolumeRow(r: { span_id: string; input: string; output: string }, n: number): void {
  const t = Math.floor(n / SPANS_PER_TRACE);
  const s = n % SPANS_PER_TRACE;
  if (r.span_id !== `${exportTraceId(t)}-${String(s).padStart(2, '0')}` || r.input !== exportInput(t, s) || r.output !== exportOutput(t, s))
    throw new Error(`row ${n} (${r.span_id}) differs from what was written`);
}

describe('agent-eval export', () => {
  const env = () => ({ AGENT_EVAL_URL: svc.apiUrl, AGENT_EVAL_API_KEY: volumeKey, AGENT_EVAL_PROJECT: VOLUME_PROJECT });

  it('streams CSV response after response into one file with one header row', async () => {
    const out = path.join(svc.dataDir, 'cli-spans.csv');
    const run = await runCli(['export', 'spans', '--format', 'csv', '--limit', '7000', '--max-rows', '20000', '--out', out, '--json'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(parseJson<{ rows: number; responses: number; next_cursor: string }>(run)).toMatchObject({
      rows: 20_000,
      responses: 3,
      next_cursor: expect.any(String) as string,
    });
    const rows: ExportedSpan[] = parseCsvSync(fs.readFileSync(out), { columns: true });
    expect(rows).toHaveLength(20_000);
    rows.forEach((r, n) => checkVolumeRow(r, n));
    // Resumed from the printed cursor, appended: the next rows follow on without a second header.
    const { next_cursor } = parseJson<{ next_cursor: string }>(run);
    const more = await runCli(['export', 'spans', '--format', 'csv', '--max-rows', '5000', '--cursor', next_cursor, '--append', '--out', out], { env: env() });
    expect(more.code, more.stderr).toBe(0);
    const all: ExportedSpan[] = parseCsvSync(fs.readFileSync(out), { columns: true });
    expect(all).toHaveLength(25_000);
    all.forEach((r, n) => checkVolumeRow(r, n));
  }, 120_000);

  it('writes Parquet through a job', async () => {
    const out = path.join(svc.dataDir, 'cli-spans.parquet');
    const run = await runCli(['export', 'spans', '--format', 'parquet', '--max-rows', '1000', '--out', out, '--json'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(parseJson<{ rows: number }>(run).rows).toBe(1000);
    const rs = await svc.clickhouse.query({ query: `SELECT count() AS n, min(span_id) AS first FROM file('${out}', Parquet)`, format: 'JSONEachRow' });
    const [read] = await rs.json<{ n: string | number; first: string }>();
    expect({ n: Number(read.n), first: read.first }).toEqual({ n: 1000, first: `${exportTraceId(0)}-00` });
  }, 120_000);
});

describe('ClickHouse down', () => {
  it('answers an export with 503 and the SPEC body before any byte', async () => {
    const down = await startApiOnStores({ clickhouseUrl: 'http://127.0.0.1:9', postgresUrl: 'postgres://u:p@127.0.0.1:9/db', clickhouseTimeoutMs: 2_000 });
    try {
      const res = await fetch(`${down.base}/api/exports/spans?format=csv`, { headers: { 'x-project-id': 'p' } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBeTruthy();
      expect(await res.json()).toMatchObject({ error: 'Analytical store service unavailable', status: 503 });
    } finally {
      await down.close();
    }
  });
});
