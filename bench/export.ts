import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { openMigratedClickHouse } from '../test/helpers/clickhouse-store.js';
import { makeDataDir } from '../test/helpers/data-dir.js';
import { fillExportSpans } from './export-data.js';

/**
 * Bulk export at scale (issue 31): `spans` spans (the generator of bench/export-data.ts: ~1.3 KB of
 * markdown per span with blank lines, CRLF, quotes, emoji and Hebrew) written into chDB through the
 * store's batch writer, then every span exported in each format, each in a process of its own
 * (bench/export-child.ts) so its peak RSS (getrusage's maxRSS) is that format's alone: JSON Lines
 * and CSV streamed as GET /api/exports/spans reads them (pages of 8 MB), and JSON Lines, CSV and
 * Parquet written to a file as an export job does. At the store: the HTTP answer adds one copy of
 * each chunk. Run: `npm run bench -- export [--spans N] [--runs N]` (default 1,000,000; --quick 100,000).
 */
const PROJECT = 'bench-export';
const CASES = [
  ['jsonl', 'stream'],
  ['csv', 'stream'],
  ['jsonl', 'job'],
  ['csv', 'job'],
  ['parquet', 'job'],
] as const;

export async function benchExport(opts: { spans: number }) {
  const dataDir = makeDataDir('agent-eval-bench-export-');
  const { ch, store } = await openMigratedClickHouse(dataDir);
  const t0 = performance.now();
  await fillExportSpans(store, PROJECT, opts.spans);
  const fill = { spans: opts.spans, seconds: Math.round((performance.now() - t0) / 100) / 10 };
  console.log(JSON.stringify({ phase: 'fill', ...fill }));
  await ch.close();
  const results: Record<string, unknown> = {};
  for (const [format, mode] of CASES) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'export-child.ts'), dataDir, PROJECT, format, mode], {
      encoding: 'utf8',
      maxBuffer: 1024 * 1024,
    });
    const line = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
    console.log(JSON.stringify({ phase: `${format} ${mode}`, ...line }));
    results[`${format}_${mode}`] = line;
  }
  return { fill, ...results };
}
