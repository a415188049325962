import fs from 'node:fs';
import { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import type { ExportFilters, ExportFormat, ExportPosition, ExportRequest } from '../../model/export.js';
import type { ExportReads, ExportStream } from '../exports.js';
import type { ClickHouse, ClickHouseClient } from './client.js';
import { EXPORT_COLUMNS, exportPlanSql, exportRowsSql, outputClause, scoreFilters, spanFilters, traceFilters, type Filtered } from './export-sql.js';
import { fromClickHouseTime, toClickHouseTime } from './time.js';

/** Large texts one page of a stream reads at most (plus one row): what bounds a stream's memory. */
export const PAGE_BYTES = 8 * 1024 * 1024;

interface PlanRow {
  page: number | string;
  rows: number | string;
  last1: string;
  last2: string;
}

function filtersOf(request: ExportRequest): Filtered {
  const f: ExportFilters = request.filters;
  if (request.kind === 'traces') return traceFilters(f, toClickHouseTime);
  if (request.kind === 'spans') return spanFilters(f, toClickHouseTime);
  return scoreFilters(f, toClickHouseTime);
}

/** The parameters of a position as the start (`after*`) or end (`through*`) of a range. */
function positionParams(prefix: 'after' | 'through', p: ExportPosition): Record<string, unknown> {
  if (p.kind === 'traces') return { [`${prefix}Start`]: toClickHouseTime(p.startMs), [`${prefix}Trace`]: p.traceId };
  return { [`${prefix}Trace`]: p.traceId, [`${prefix}Id`]: p.id };
}

function positionOf(kind: ExportRequest['kind'], row: PlanRow): ExportPosition {
  if (kind === 'traces') return { kind, startMs: Date.parse(fromClickHouseTime(row.last1)), traceId: row.last2 };
  return { kind, traceId: row.last1, id: row.last2 };
}

/** RFC 4180's header row, quoted as ClickHouse's CSVWithNames writes it. */
function csvHeader(kind: ExportRequest['kind']): Buffer {
  return Buffer.from(`${EXPORT_COLUMNS[kind].map(([name]) => `"${name}"`).join(',')}\r\n`);
}

async function* bytesOf(stream: AsyncIterable<Buffer | string>): AsyncIterable<Buffer> {
  for await (const chunk of stream) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}

/**
 * Exports on ClickHouse (the contract: core/store/exports.ts). Embedded, on a chDB connection of
 * its own (`ch.longReads`): a page is one materialized result there, whence the pages; a file is
 * written by chDB itself (`INTO OUTFILE`). Over HTTP, a file is the query's answer streamed to disk.
 */
export function createExportReads(ch: ClickHouse, pageBytes = PAGE_BYTES): ExportReads {
  const client = (): ClickHouseClient => ch.longReads?.() ?? ch.client;

  async function run(query: string, params: Record<string, unknown>): Promise<AsyncIterable<Buffer>> {
    const result = await client().exec({ query, query_params: params });
    return bytesOf(result.stream as AsyncIterable<Buffer>);
  }

  return {
    async stream(projectId, request, format): Promise<ExportStream> {
      const f = filtersOf(request);
      const base = { ...f.params, project: projectId };
      const after = request.after ? positionParams('after', request.after) : {};
      const planned = await client().query({
        query: exportPlanSql(request.kind, f, request.after !== undefined),
        query_params: { ...base, ...after, limit: request.limit, pageBytes },
        format: 'JSONEachRow',
      });
      const pages = (await planned.json<PlanRow>()).map((p) => ({ rows: Number(p.rows), last: positionOf(request.kind, p) }));
      const rows = pages.reduce((n, p) => n + p.rows, 0);
      const next = rows >= request.limit && pages.length > 0 ? pages[pages.length - 1].last : null;
      async function* body(): AsyncIterable<Buffer> {
        if (format === 'csv') yield csvHeader(request.kind);
        let from = request.after;
        for (const page of pages) {
          const range = { after: from !== undefined, through: true };
          const params = { ...base, ...(from ? positionParams('after', from) : {}), ...positionParams('through', page.last) };
          yield* await run(`${exportRowsSql(request.kind, format, f, range, false)}\n${outputClause(format, false)}`, params);
          from = page.last;
        }
      }
      return { rows, next, body: body() };
    },

    async writeFile(projectId, request, format: ExportFormat, file) {
      const f = filtersOf(request);
      const params = { ...f.params, project: projectId, limit: request.limit, ...(request.after ? positionParams('after', request.after) : {}) };
      const range = { after: request.after !== undefined, through: false };
      const select = exportRowsSql(request.kind, format, f, range, true);
      const counted = await client().query({ query: `SELECT count() AS n FROM (${select})`, query_params: params, format: 'JSONEachRow' });
      const [{ n }] = await counted.json<{ n: string | number }>();
      if (ch.longReads) {
        // chDB writes the file as the rows come, with bounded row groups: nothing passes through JS.
        const done = await client().exec({ query: `${select}\n${outputClause(format, true, file)}`, query_params: params });
        done.stream.resume();
        await finished(done.stream);
      } else {
        await pipeline(Readable.from(await run(`${select}\n${outputClause(format, true)}`, params)), fs.createWriteStream(file));
      }
      return { rows: Number(n) };
    },
  };
}
