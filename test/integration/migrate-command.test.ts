import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeDataDir } from '../helpers/data-dir.js';
import { REPO_ROOT } from '../helpers/server.js';
import { readMigrations } from '../../core/store/migrations.js';
import { connectClickHouse } from '../../core/store/clickhouse/client.js';

const run = promisify(execFile);

async function migrate(dataDir: string) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'main.ts', 'migrate'], {
    cwd: REPO_ROOT,
    env: { ...process.env, AGENT_EVAL_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    timeout: 120_000,
  });
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { msg: string; store?: string; migration?: string });
}

describe('agent-eval migrate', () => {
  it('applies every numbered migration of both stores once, in order, and records them', async () => {
    const dir = makeDataDir('agent-eval-migrate-');
    const first = await migrate(dir);
    const applied = first.filter((l) => l.msg === 'applying migration').map((l) => `${l.store}:${l.migration}`);
    // Every migration file, in order, ClickHouse first.
    const files = (['clickhouse', 'postgres'] as const).flatMap((store) => readMigrations(store).map((m) => `${store}:${m.id}`));
    expect(files.slice(0, 2)).toEqual(['clickhouse:001_spans_traces_scores', 'clickhouse:002_trace_stats']);
    expect(files.find((f) => f.startsWith('postgres:'))).toBe('postgres:001_projects');
    expect(applied).toEqual(files);
    const second = await migrate(dir);
    expect(second.filter((l) => l.msg === 'applying migration')).toEqual([]);
  });

  it('refuses a data dir a newer version migrated, before applying anything, with a clear message', async () => {
    const dir = makeDataDir('agent-eval-migrate-newer-');
    await migrate(dir);
    // What a newer version leaves behind: a migration this one does not have.
    const ch = await connectClickHouse({ dataDir: dir });
    try {
      await ch.client.insert({ table: 'agent_eval.schema_migrations', values: [{ id: '999_from_a_newer_version' }], format: 'JSONEachRow' });
    } finally {
      await ch.close();
    }
    const failed = await run(process.execPath, ['--import', 'tsx', 'main.ts', 'migrate'], {
      cwd: REPO_ROOT,
      env: { ...process.env, AGENT_EVAL_DATA_DIR: dir, LOG_LEVEL: 'info' },
      timeout: 120_000,
    }).then(
      () => null,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(
      /the ClickHouse store was migrated by a newer agent-eval than this one \(0\.\d+\.\d+\): it has migration 999_from_a_newer_version, which this version does not know/,
    );
    expect(failed?.stderr).not.toMatch(/\n\s+at /);
    expect(failed?.stdout ?? '').not.toContain('applying migration');
  });
});
