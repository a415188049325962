import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { startTestApi, type TestApi } from '../helpers/server.js';
import { checkVolumeSpan, peakRss, seedVolumeSpans } from '../helpers/export-volume.js';

/**
 * Bulk export at a million spans (issue 31), through the real API on embedded chDB: JSON Lines and
 * CSV streamed whole, every row checked against what was written as it arrives, with the
 * process's peak memory measured and bounded; Parquet written by a background job and read back
 * by ClickHouse, row for row. Throughput figures are the bench's (bench/export.ts).
 */
const MILLION = 1_000_000;
const PROJECT = 'export-million';

let svc: TestApi;
let key: string;

beforeAll(async () => {
  svc = await startTestApi();
  key = await svc.keyFor(PROJECT);
  await seedVolumeSpans(svc.clickhouse, PROJECT, MILLION, Date.now() - MILLION - 60_000);
}, 600_000);

afterAll(async () => {
  await svc?.stop();
});

describe('a million spans exported', () => {
  for (const format of ['jsonl', 'csv'] as const) {
    it(`${format}: streamed whole, every row as written, memory bounded while ~300 MB go through`, async () => {
      const { result, growthMb, afterMarkMb, peakMb } = await peakRss(async (mark) => {
        const res = await svc.api(`/api/exports/spans?format=${format}&limit=${MILLION}`, { key, project: PROJECT });
        expect(res.status).toBe(200);
        let bytes = 0;
        const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>).on('data', (c: Buffer) => (bytes += c.length));
        const rows: AsyncIterable<{ span_id: string; input: string; output: string }> =
          format === 'jsonl'
            ? (async function* () {
                for await (const line of readline.createInterface({ input: body, crlfDelay: Infinity }))
                  yield JSON.parse(line) as { span_id: string; input: string; output: string };
              })()
            : body.pipe(parseCsv({ columns: true }));
        let n = 0;
        for await (const r of rows) {
          checkVolumeSpan(r, n++);
          if (n === MILLION / 4) mark();
        }
        return { n, bytes, header: res.headers.get('x-export-rows'), cursor: res.headers.get('x-next-cursor') };
      });
      const exportedMb = result.bytes / 2 ** 20;
      console.info(`export ${format} 1M spans: ${Math.round(exportedMb)} MB, process grew ${Math.round(growthMb)} MB (peak RSS ${Math.round(peakMb)} MB)`);
      expect(result.n).toBe(MILLION);
      expect(result.header).toBe(String(MILLION));
      // The limit was reached, so the answer offers a cursor; it leads to nothing more.
      const rest = await svc.api(`/api/exports/spans?format=${format}&cursor=${result.cursor}`, { key, project: PROJECT });
      expect(rest.status).toBe(200);
      expect(rest.headers.get('x-export-rows')).toBe('0');
      expect(rest.headers.get('x-next-cursor')).toBeNull();
      expect(exportedMb).toBeGreaterThan(250);
      // Pages are bounded: memory reaches its level on the first pages and stays there while
      // three quarters of the export (over 200 MB) go through.
      expect(growthMb, `grew ${Math.round(growthMb)} MB in all while ${Math.round(exportedMb)} MB streamed`).toBeLessThan(256);
      expect(afterMarkMb, `grew ${Math.round(afterMarkMb)} MB after the first quarter`).toBeLessThan(64);
    }, 900_000);
  }

  it('parquet: a background job writes the file, which ClickHouse reads back row for row', async () => {
    const created = await svc.api('/api/exports', { method: 'POST', key, project: PROJECT, json: { kind: 'spans', format: 'parquet' } });
    expect(created.status).toBe(202);
    const job = (await created.json()) as { id: string };
    const done = await eventually(async () => {
      const view = (await (await svc.api(`/api/exports/${job.id}`, { key, project: PROJECT })).json()) as { status: string; rows: number };
      expect(view.status).toBe('succeeded');
      return view;
    }, 600_000);
    expect(done.rows).toBe(MILLION);
    const download = await svc.api(`/api/exports/${job.id}/download`, { key, project: PROJECT });
    expect(download.status).toBe(200);
    const file = path.join(svc.dataDir, `million-${job.id}.parquet`);
    await fs.promises.writeFile(file, Readable.fromWeb(download.body as import('node:stream/web').ReadableStream<Uint8Array>));
    const sums = async (from: string) => {
      const rs = await svc.clickhouse.query({
        query: `SELECT count() AS n, uniqExact(span_id) AS ids, sum(cityHash64(trace_id, span_id, input, output, toString(attributes), toUnixTimestamp64Milli(start_time))) AS h FROM ${from}`,
        format: 'JSONEachRow',
      });
      return (await rs.json<{ n: string; ids: string; h: string }>())[0];
    };
    const fromFile = await sums(`file('${file}', Parquet)`);
    expect(fromFile).toEqual(await sums(`(SELECT * FROM agent_eval.spans WHERE project_id = '${PROJECT}')`));
    expect(Number(fromFile.n)).toBe(MILLION);
    expect(Number(fromFile.ids)).toBe(MILLION);
  }, 900_000);
});
