import fs from 'node:fs';
import path from 'node:path';
import { connectClickHouse } from '../core/store/clickhouse/client.js';
import { createExportReads } from '../core/store/clickhouse/export-reads.js';
import { MAX_EXPORT_ROWS, type ExportFormat } from '../core/model/export.js';

/**
 * One format of the export bench (bench/export.ts), alone in this process so its peak RSS is its
 * own: opens the filled chDB, exports every span of the project, and prints one JSON line.
 * Streamed formats go response after response (1,000,000 rows each) with the bytes counted and
 * dropped, as a client that writes them to disk would; a job's format is written to a file.
 * Run by the bench: `node --import tsx bench/export-child.ts <data dir> <project> <format> <stream|job>`.
 */
const [dataDir, project, format, mode] = process.argv.slice(2) as [string, string, ExportFormat, 'stream' | 'job'];
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

const ch = await connectClickHouse({ dataDir });
const exports = createExportReads(ch);
// The engine loaded and a first query run, so the baseline includes what any export pays.
await (await ch.longReads!().query({ query: 'SELECT count() FROM agent_eval.spans', format: 'JSONEachRow' })).json();
const before = process.memoryUsage.rss();
const t0 = performance.now();
let rows = 0;
let bytes = 0;
if (mode === 'stream') {
  let after;
  do {
    const res = await exports.stream(project, { kind: 'spans', filters: {}, limit: MAX_EXPORT_ROWS, after }, format as 'jsonl' | 'csv');
    for await (const chunk of res.body) bytes += chunk.length;
    rows += res.rows;
    after = res.next ?? undefined;
  } while (after);
} else {
  const file = path.join(dataDir, `bench-export.${format}`);
  rows = (await exports.writeFile(project, { kind: 'spans', filters: {}, limit: 100_000_000 }, format, file)).rows;
  bytes = fs.statSync(file).size;
  fs.rmSync(file);
}
const seconds = (performance.now() - t0) / 1000;
const peak = process.resourceUsage().maxRSS * 1024;
await ch.close();
console.log(
  JSON.stringify({
    format,
    mode,
    rows,
    mb: mb(bytes),
    seconds: Math.round(seconds * 10) / 10,
    rows_per_s: Math.round(rows / seconds),
    mb_per_s: mb(bytes / seconds),
    rss_before_mb: mb(before),
    peak_rss_mb: mb(peak),
  }),
);
