import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebStream } from 'node:stream/web';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { EXPORT_FORMATS, EXPORT_KINDS, type ExportFormat, type ExportKind } from '../../core/model/export.js';
import type { AgentEvalClient } from '../../sdk/client.js';
import { action, connect } from '../client.js';
import { CliError, colorsFor, printJson, println, type CliIo } from '../io.js';

/**
 * `agent-eval export <traces|spans|scores>` (docs/cli.md): JSON Lines or CSV streamed response by
 * response (GET /api/exports/{kind}, following X-Next-Cursor) into a file or stdout; Parquet, or
 * any format with --job, as a background job whose file is then downloaded. A response cut short
 * is taken back out of the file, and the cursor to resume from is printed.
 */
interface ExportOptions {
  format: string;
  out?: string;
  limit?: string;
  maxRows?: string;
  cursor?: string;
  append?: boolean;
  since?: string;
  until?: string;
  filter: string[];
  job?: boolean;
  json?: boolean;
}

interface Progress {
  update(rows: number, bytes: number, responses: number): void;
  stop(): void;
}

/** A cli-progress line on a terminal (rows as responses complete, bytes as they arrive); nothing in a pipe. */
function progressOf(io: CliIo, label: string): Progress {
  if (!io.stderr.isTTY || io.env.TERM === 'dumb') return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { stream: io.stderr, format: `${label} {rows} rows | {mb} MB | {responses} responses | {duration_formatted}`, hideCursor: true, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(1, 0, { rows: 0, mb: '0.0', responses: 0 });
  return {
    update: (rows, bytes, responses) => bar.update(0, { rows: rows.toLocaleString('en'), mb: (bytes / 2 ** 20).toFixed(1), responses }),
    stop: () => bar.stop(),
  };
}

function filtersOf(opts: ExportOptions): Record<string, string> {
  const filters: Record<string, string> = {};
  for (const f of opts.filter) {
    const at = f.indexOf('=');
    if (at < 1) throw new CliError(`--filter takes name=value: ${f}`, 'e.g. --filter model=gpt-4o --filter status=error (docs/api.md, "Bulk export")');
    filters[f.slice(0, at)] = f.slice(at + 1);
  }
  if (opts.since) filters.start_time = opts.since;
  if (opts.until) filters.end_time = opts.until;
  return filters;
}

const positive = (v: string | undefined, name: string): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new CliError(`${name} must be a whole number above 0: ${v}`);
  return n;
};

/** Streams responses into `out`, cursor after cursor; a cut response is truncated away and its cursor printed. */
async function streamed(io: CliIo, client: AgentEvalClient, kind: ExportKind, format: 'jsonl' | 'csv', opts: ExportOptions) {
  const limit = positive(opts.limit, '--limit');
  const maxRows = positive(opts.maxRows, '--max-rows');
  const file = opts.out ? path.resolve(opts.out) : undefined;
  const fd = file ? fs.openSync(file, opts.append ? 'a' : 'w', 0o600) : undefined;
  const write = (chunk: Buffer) => (fd === undefined ? io.stdout.write(chunk) : fs.writeSync(fd, chunk));
  const progress = progressOf(io, kind);
  let cursor: string | null = opts.cursor ?? null;
  let rows = 0;
  let bytes = 0;
  let responses = 0;
  try {
    do {
      const take = maxRows === undefined ? limit : Math.min(limit ?? 100_000, maxRows - rows);
      const res = await client.exports.stream(kind, { ...filtersOf(opts), format, limit: take, ...(cursor ? { cursor } : {}) });
      const startSize = fd === undefined ? 0 : fs.fstatSync(fd).size;
      // CSV: one header row per file, so a later response's (or an appended one's) is left out.
      let skipHeader = format === 'csv' && (responses > 0 || (opts.append === true && startSize > 0));
      try {
        for await (const raw of Readable.fromWeb(res.body as WebStream<Uint8Array>)) {
          let chunk = raw as Buffer;
          if (skipHeader) {
            const end = chunk.indexOf('\r\n');
            if (end < 0) continue;
            chunk = chunk.subarray(end + 2);
            skipHeader = false;
          }
          write(chunk);
          bytes += chunk.length;
          progress.update(rows, bytes, responses);
        }
      } catch (err) {
        if (fd !== undefined) fs.ftruncateSync(fd, startSize);
        const resume = cursor ? `--cursor ${cursor} --append` : '--append (from the start: the file holds nothing of this export)';
        throw new CliError(`The export was cut off after ${rows} rows: ${(err as Error).message}`, `Resume with the same options and ${resume}`);
      }
      rows += res.rows;
      responses++;
      progress.update(rows, bytes, responses);
      cursor = res.nextCursor;
    } while (cursor && (maxRows === undefined || rows < maxRows));
  } finally {
    progress.stop();
    if (fd !== undefined) fs.closeSync(fd);
  }
  return { rows, bytes, responses, next_cursor: cursor };
}

/** A job: created, waited for (polled every second), then its file downloaded into `out`. */
async function viaJob(io: CliIo, client: AgentEvalClient, kind: ExportKind, format: ExportFormat, opts: ExportOptions) {
  if (!opts.out)
    throw new CliError(`--out is required for ${format === 'parquet' ? 'Parquet' : 'an export job'}`, 'Name the file to write, e.g. --out spans.parquet');
  const maxRows = positive(opts.maxRows, '--max-rows');
  let job = await client.exports.create({ kind, format, filters: filtersOf(opts), ...(maxRows ? { limit: maxRows } : {}) });
  const c = colorsFor(io.stderr, io.env);
  if (!opts.json) println(io.stderr, c.dim(`export job ${job.id} ${job.status}`));
  while (job.status === 'queued' || job.status === 'running') {
    await new Promise((r) => setTimeout(r, 1000));
    job = await client.exports.get(job.id);
  }
  if (job.status === 'failed') throw new CliError(`Export job ${job.id} failed: ${job.error}`);
  const out = path.resolve(opts.out);
  const partial = `${out}.partial-${process.pid}`;
  try {
    const body = await client.exports.download(job.id);
    const sink = fs.createWriteStream(partial, { mode: 0o600 });
    for await (const chunk of Readable.fromWeb(body as WebStream<Uint8Array>)) if (!sink.write(chunk)) await new Promise((r) => sink.once('drain', r));
    await new Promise<void>((resolve, reject) => sink.end((err?: Error | null) => (err ? reject(err) : resolve())));
    fs.renameSync(partial, out);
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw new CliError(
      `Download of export ${job.id} failed: ${(err as Error).message}`,
      `The file is kept until ${job.expires_at}: agent-eval export again, or GET /api/exports/${job.id}/download`,
    );
  }
  return { job: job.id, rows: job.rows, bytes: job.bytes, file: out };
}

async function runExport(io: CliIo, kind: string, opts: ExportOptions): Promise<void> {
  if (!(EXPORT_KINDS as readonly string[]).includes(kind)) throw new CliError(`Unknown export: ${kind}`, `Export one of: ${EXPORT_KINDS.join(', ')}`);
  if (!(EXPORT_FORMATS as readonly string[]).includes(opts.format)) throw new CliError(`--format must be one of: ${EXPORT_FORMATS.join(', ')}`);
  const format = opts.format as ExportFormat;
  const client = connect(io);
  const result =
    format === 'parquet' || opts.job
      ? await viaJob(io, client, kind as ExportKind, format, opts)
      : await streamed(io, client, kind as ExportKind, format, opts);
  if (opts.json) return printJson(io, result);
  if (!opts.out) return;
  const c = colorsFor(io.stderr, io.env);
  println(io.stderr, `${c.green('Exported')} ${result.rows ?? 0} ${kind} to ${path.resolve(opts.out)} (${result.bytes ?? 0} bytes)`);
  if ('next_cursor' in result && result.next_cursor) println(io.stderr, `More rows follow: --cursor ${result.next_cursor} --append`);
}

export function registerExport(program: Command, io: CliIo): void {
  program
    .command('export <kind>')
    .description('export traces, spans or scores in bulk as JSON Lines, CSV or Parquet (docs/cli.md)')
    .option('--format <format>', `${EXPORT_FORMATS.join(', ')} (parquet runs as a job)`, 'jsonl')
    .option('--out <file>', 'the file to write (default: stdout; required for parquet and --job)')
    .option('--since <time>', 'from this time (ISO 8601 or epoch ms): a trace or span start, a score creation')
    .option('--until <time>', 'up to this time')
    .option(
      '--filter <name=value>',
      'a filter of the kind, repeatable (e.g. model=gpt-4o, status=error, trace_id=...)',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .option('--limit <rows>', 'rows per request (default 100,000; at most 1,000,000)')
    .option('--max-rows <rows>', 'stop after this many rows in all')
    .option('--cursor <cursor>', 'start where an earlier export stopped (its printed cursor)')
    .option('--append', 'append to --out instead of replacing it (with --cursor: resume)')
    .option('--job', 'run as a background job and download its file (any format)')
    .option('--json', 'print what was exported as JSON')
    .action(action(io, (kind: string, opts: ExportOptions) => runExport(io, kind, opts)));
}
