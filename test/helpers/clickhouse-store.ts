import { afterAll, beforeAll } from 'vitest';
import { createLogger } from '../../core/logger.js';
import type { AnalyticsStore } from '../../core/store/analytics.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { clickhouseMigrationTarget } from '../../core/store/clickhouse/migration-target.js';
import { migrate } from '../../core/store/migrations.js';
import { makeDataDir } from './data-dir.js';
import { startedLater } from './test-service-hooks.js';

/** A real chDB store in a fresh data dir, migrated: the connection and the analytics store on it. */
export async function openMigratedClickHouse(): Promise<{ ch: ClickHouse; store: AnalyticsStore }> {
  const ch = await connectClickHouse({ dataDir: makeDataDir() });
  await migrate(clickhouseMigrationTarget(ch.client), createLogger('silent'));
  return { ch, store: createAnalyticsStore(ch) };
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
