import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createExportJobs } from '../../../core/exports/export-jobs.js';
import { createLogger } from '../../../core/logger.js';
import type { ExportReads } from '../../../core/store/exports.js';
import { makeDataDir } from '../../helpers/data-dir.js';
import { eventually } from '../../helpers/eventually.js';

/**
 * Export jobs' lifecycle on disk (core/exports/export-jobs.ts): a job's file and record per
 * project, a failure kept with its reason, a restart failing the jobs it cut short, expiry.
 * The writer is a stand-in for the store's (ClickHouse's part is tested in
 * test/integration/exports.test.ts): it writes `rows` lines, or fails.
 */
function writer(outcome: 'ok' | 'fail' | 'hang'): ExportReads {
  return {
    stream: () => Promise.reject(new Error('not used')),
    async writeFile(_project, _request, _format, file) {
      if (outcome === 'hang') return new Promise(() => {});
      if (outcome === 'fail') throw new Error('Code: 241. MEMORY_LIMIT_EXCEEDED');
      fs.writeFileSync(file, '{"a":1}\n{"a":2}\n');
      return { rows: 2 };
    },
  };
}

const logger = createLogger('silent');
const job = { request: { kind: 'spans' as const, filters: {}, limit: 10 }, format: 'jsonl' as const, filters: { model: 'gpt-4o' } };

describe('export jobs', () => {
  it('writes the file, keeps it per project, and shows the job to its project only', async () => {
    const dir = makeDataDir();
    const jobs = createExportJobs({ dir, exports: writer('ok'), logger });
    const created = jobs.create('team-a', job);
    expect(created).toMatchObject({ status: 'queued', kind: 'spans', format: 'jsonl', filters: { model: 'gpt-4o' }, rows: null });
    const done = await eventually(() => {
      const view = jobs.get('team-a', created.id);
      expect(view?.status).toBe('succeeded');
      return view!;
    });
    expect(done).toMatchObject({ rows: 2, bytes: 16, download_url: `/api/exports/${created.id}/download`, error: null });
    expect(fs.readFileSync(jobs.file('team-a', created.id)!.path, 'utf8')).toBe('{"a":1}\n{"a":2}\n');
    expect(jobs.get('team-b', created.id)).toBeNull();
    expect(jobs.list('team-b')).toEqual([]);
    expect(jobs.list('team-a').map((j) => j.id)).toEqual([created.id]);
    expect(jobs.get('team-a', '../../etc/passwd')).toBeNull();
    await jobs.close();
  });

  it('keeps a failure with its reason and leaves no partial file', async () => {
    const dir = makeDataDir();
    const jobs = createExportJobs({ dir, exports: writer('fail'), logger });
    const created = jobs.create('p', job);
    const failed = await eventually(() => {
      const view = jobs.get('p', created.id);
      expect(view?.status).toBe('failed');
      return view!;
    });
    expect(failed.error).toContain('MEMORY_LIMIT_EXCEEDED');
    expect(fs.readdirSync(path.dirname(jobs.file('p', created.id)!.path)).filter((f) => !f.endsWith('.json'))).toEqual([]);
    await jobs.close();
  });

  it('fails at the next start the jobs a stopped process left running', async () => {
    const dir = makeDataDir();
    const before = createExportJobs({ dir, exports: writer('hang'), logger });
    const created = before.create('p', job);
    await eventually(() => expect(before.get('p', created.id)?.status).toBe('running'));
    // The process "stops" here: a new one opens the same folder.
    const after = createExportJobs({ dir, exports: writer('ok'), logger });
    expect(after.get('p', created.id)).toMatchObject({ status: 'failed', error: expect.stringContaining('stopped') as string });
  });

  it('removes a job and its file once it expired', async () => {
    const dir = makeDataDir();
    const jobs = createExportJobs({ dir, exports: writer('ok'), logger, retentionMs: 300 });
    const created = jobs.create('p', job);
    await eventually(() => expect(jobs.get('p', created.id)?.status).toBe('succeeded'));
    const file = jobs.file('p', created.id)!.path;
    await new Promise((r) => setTimeout(r, 350));
    expect(jobs.get('p', created.id)).toBeNull();
    expect(fs.existsSync(file)).toBe(false);
    await jobs.close();
  });
});
