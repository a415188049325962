import { afterAll, beforeAll } from 'vitest';
import { createLogger } from '../../core/logger.js';
import type { AnalyticsStore } from '../../core/store/analytics.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { clickhouseMigrationTarget } from '../../core/store/clickhouse/migration-target.js';
import { migrate, readMigrations } from '../../core/store/migrations.js';
import { makeDataDir } from './data-dir.js';
import { startedLater } from './test-service-hooks.js';

/** A real chDB store in a fresh data dir (or `dataDir`), migrated: the connection and the analytics store on it. */
export async function openMigratedClickHouse(dataDir = makeDataDir()): Promise<{ ch: ClickHouse; store: AnalyticsStore }> {
  const ch = await connectClickHouse({ dataDir });
  await migrate(clickhouseMigrationTarget(ch.client), createLogger('silent'));
  return { ch, store: createAnalyticsStore(ch) };
}

/**
 * chDB as the release before migration `id` left it: every ClickHouse migration before `id`
 * applied. `upgrade()` then migrates as a start of the new release does and gives the ids it
 * applied, which should be `later` (`id` and the ones after it).
 */
export async function clickhouseBefore(ch: ClickHouse, id: string): Promise<{ later: string[]; upgrade: () => Promise<string[]> }> {
  const target = clickhouseMigrationTarget(ch.client);
  await target.applied();
  const all = readMigrations('clickhouse');
  const at = all.findIndex((m) => m.id === id);
  if (at < 1) throw new Error(`no ClickHouse migration ${id} after the first`);
  for (const m of all.slice(0, at)) await target.apply(m);
  return { later: all.slice(at).map((m) => m.id), upgrade: () => migrate(target, createLogger('silent')) };
}

/**
 * openMigratedClickHouse as a test file's hooks: opened in `beforeAll`, closed in `afterAll`. The
 * connection and the store returned stand for the real ones from the moment `beforeAll` opened them.
 */
export function useMigratedClickHouse(): { ch: ClickHouse; store: AnalyticsStore } {
  let opened: { ch: ClickHouse; store: AnalyticsStore } | undefined;
  beforeAll(async () => {
    opened = await openMigratedClickHouse();
  });
  afterAll(async () => {
    await opened?.ch.close();
  });
  return { ch: startedLater(() => opened?.ch, 'chDB'), store: startedLater(() => opened?.store, 'the analytics store') };
}
