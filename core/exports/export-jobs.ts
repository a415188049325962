import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ExportFormat, ExportJobView, ExportRequest } from '../model/export.js';
import type { Logger } from '../logger.js';
import type { ExportReads } from '../store/exports.js';

/**
 * Background export jobs (POST /api/exports, docs/api.md "Bulk export"): each writes one file,
 * in any format, by one query that ClickHouse formats (the only way to Parquet, a file that is
 * not whole until its footer). Jobs run in the API process that took them, one at a time, and
 * live in its data dir: `<dir>/<project hash>/<id>.json` (the record) beside `<id>.<format>`
 * (the file, renamed into place when complete), so a project's jobs are found only under its
 * own folder and a restart keeps them. A job that was queued or running when its process
 * stopped is failed at the next start; records and files go `retentionMs` after creation.
 * With several API processes, a job is known to the one that took it (docs/deployment.md).
 */
export interface ExportJobs {
  create(projectId: string, job: NewExportJob): ExportJobView;
  get(projectId: string, id: string): ExportJobView | null;
  list(projectId: string): ExportJobView[];
  /** A succeeded job's file, or null when the job is not found (or expired). */
  file(projectId: string, id: string): { path: string; job: ExportJobView } | null;
  /** Waits for the running job, then stops sweeping. */
  close(): Promise<void>;
}

export interface NewExportJob {
  request: ExportRequest;
  format: ExportFormat;
  /** The filters as the client gave them, shown back. */
  filters: Record<string, unknown>;
}

export interface ExportJobOptions {
  dir: string;
  exports: ExportReads;
  logger: Logger;
  /** How long a job's record and file are kept (default 24 hours). */
  retentionMs?: number;
  /** How often expired jobs are removed (default hourly). */
  sweepEveryMs?: number;
}

interface Record_ extends ExportJobView {
  request: ExportRequest;
}

const DAY_MS = 24 * 3600_000;
const view = ({ request: _request, ...v }: Record_): ExportJobView => v;

export function createExportJobs(o: ExportJobOptions): ExportJobs {
  const retentionMs = o.retentionMs ?? DAY_MS;
  const folder = (projectId: string) => path.join(o.dir, createHash('sha256').update(projectId).digest('hex').slice(0, 32));
  const recordPath = (projectId: string, id: string) => path.join(folder(projectId), `${id}.json`);
  const filePath = (projectId: string, job: { id: string; format: ExportFormat }) => path.join(folder(projectId), `${job.id}.${job.format}`);
  let tail: Promise<void> = Promise.resolve();

  function save(projectId: string, r: Record_): void {
    const file = recordPath(projectId, r.id);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(r), { mode: 0o600 });
    fs.renameSync(`${file}.tmp`, file);
  }

  function load(file: string): Record_ | null {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as Record_;
    } catch {
      return null;
    }
  }

  function remove(projectId: string, r: Record_): void {
    fs.rmSync(filePath(projectId, r), { force: true });
    fs.rmSync(`${filePath(projectId, r)}.part`, { force: true });
    fs.rmSync(recordPath(projectId, r.id), { force: true });
  }

  const expired = (r: Record_) => Date.parse(r.expires_at) <= Date.now();

  async function run(projectId: string, r: Record_): Promise<void> {
    save(projectId, { ...r, status: 'running' });
    const part = `${filePath(projectId, r)}.part`;
    try {
      const { rows } = await o.exports.writeFile(projectId, r.request, r.format, part);
      fs.renameSync(part, filePath(projectId, r));
      const bytes = fs.statSync(filePath(projectId, r)).size;
      save(projectId, { ...r, status: 'succeeded', rows, bytes, finished_at: new Date().toISOString(), download_url: `/api/exports/${r.id}/download` });
    } catch (err) {
      fs.rmSync(part, { force: true });
      o.logger.warn({ err, job: r.id }, 'export job failed');
      save(projectId, { ...r, status: 'failed', error: (err as Error).message.slice(0, 1000), finished_at: new Date().toISOString() });
    }
  }

  /** Removes expired jobs; at start, also fails the jobs a stopped process left unfinished. */
  function sweep(atStart: boolean): void {
    if (!fs.existsSync(o.dir)) return;
    for (const project of fs.readdirSync(o.dir)) {
      const dir = path.join(o.dir, project);
      for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.json'))) {
        const r = load(path.join(dir, name));
        if (!r) continue;
        const files = { id: r.id, format: r.format };
        if (expired(r)) {
          for (const f of [path.join(dir, `${files.id}.${files.format}`), path.join(dir, `${files.id}.${files.format}.part`), path.join(dir, name)])
            fs.rmSync(f, { force: true });
        } else if (atStart && (r.status === 'queued' || r.status === 'running')) {
          fs.rmSync(path.join(dir, `${files.id}.${files.format}.part`), { force: true });
          const failed = {
            ...r,
            status: 'failed' as const,
            error: 'The service stopped before the export finished: start it again',
            finished_at: new Date().toISOString(),
          };
          fs.writeFileSync(path.join(dir, name), JSON.stringify(failed), { mode: 0o600 });
        }
      }
    }
  }

  sweep(true);
  const timer = setInterval(() => {
    try {
      sweep(false);
    } catch (err) {
      o.logger.warn({ err }, 'expired export jobs not removed');
    }
  }, o.sweepEveryMs ?? 3600_000);
  timer.unref();

  function find(projectId: string, id: string): Record_ | null {
    // Ids are UUIDs this module made: anything else names no file.
    if (!/^[0-9a-f-]{36}$/.test(id)) return null;
    const r = load(recordPath(projectId, id));
    if (!r) return null;
    if (expired(r)) {
      remove(projectId, r);
      return null;
    }
    return r;
  }

  return {
    create(projectId, job) {
      const now = Date.now();
      const r: Record_ = {
        id: randomUUID(),
        kind: job.request.kind,
        format: job.format,
        filters: job.filters,
        limit: job.request.limit,
        status: 'queued',
        rows: null,
        bytes: null,
        error: null,
        created_at: new Date(now).toISOString(),
        finished_at: null,
        expires_at: new Date(now + retentionMs).toISOString(),
        download_url: null,
        request: job.request,
      };
      save(projectId, r);
      tail = tail.then(() => run(projectId, r));
      return view(r);
    },
    get: (projectId, id) => {
      const r = find(projectId, id);
      return r && view(r);
    },
    list(projectId) {
      const dir = folder(projectId);
      if (!fs.existsSync(dir)) return [];
      return fs
        .readdirSync(dir)
        .filter((n) => n.endsWith('.json'))
        .map((n) => find(projectId, n.slice(0, -'.json'.length)))
        .filter((r): r is Record_ => r !== null)
        .map(view)
        .sort((a, b) => b.created_at.localeCompare(a.created_at));
    },
    file(projectId, id) {
      const r = find(projectId, id);
      return r && { path: filePath(projectId, r), job: view(r) };
    },
    async close() {
      clearInterval(timer);
      await tail;
    },
  };
}
