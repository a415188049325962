import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import type { AnalyticsStore } from '../core/store/analytics.js';
import { createAnalyticsStore } from '../core/store/clickhouse/analytics-store.js';
import { connectClickHouse, type ClickHouseClient } from '../core/store/clickhouse/client.js';
import { startClickHouseGateway } from '../core/store/clickhouse/gateway.js';
import type { WriteGate } from '../core/store/write-gate.js';
import { applyRetention, clickhouseMigrationTarget } from '../core/store/clickhouse/migration-target.js';
import { migrate } from '../core/store/migrations.js';
import { startEmbeddedPostgres } from '../core/store/postgres/embedded-postgres.js';
import type { MetadataStore } from '../core/store/metadata.js';
import { createMetadataStore, createPool } from '../core/store/postgres/metadata-store.js';
import { postgresMigrationTarget } from '../core/store/postgres/migration-target.js';
import type { OwnEndpoint } from '../core/egress/policy.js';
import { urlEndpoint } from './egress.js';

export interface Stores {
  analytics: AnalyticsStore;
  /** The analytical store's client, for operator tools and tests that act on the store itself. */
  clickhouse: ClickHouseClient;
  metadata: MetadataStore;
  /** Where other processes reach this process's chDB (CLICKHOUSE_GATEWAY_PORT), without credentials. */
  clickhouseGatewayUrl?: string;
  /** Embedded chDB's write gate: a backup holds writes with it while it clones the tables (core/backup/). */
  clickhouseWriteGate?: WriteGate;
  /** Where the stores listen (embedded PostgreSQL's port is chosen at start): the egress policy refuses them. */
  endpoints: OwnEndpoint[];
  /** The embedded PostgreSQL's postmaster pid (it changes when a dead one is restarted); none with DATABASE_URL. */
  postgresPid?: () => number | undefined;
  close(): Promise<void>;
}

export interface OpenStoresOptions {
  /** Serve embedded chDB to other processes when configured: the service does, `agent-eval migrate` does not. */
  gateway?: boolean;
}

/**
 * Opens both stores, embedded or external by config, and applies pending migrations.
 * Embedded PostgreSQL is a child process and is stopped by `close()`. With `gateway` and
 * CLICKHOUSE_GATEWAY_PORT, embedded chDB is then served to other processes; `close()` stops that
 * first, before the chDB connection closes.
 */
export async function openStores(config: Config, logger: Logger, options: OpenStoresOptions = {}): Promise<Stores> {
  const clickhouse = await connectClickHouse({ url: config.clickhouseUrl, dataDir: config.dataDir });
  const cleanups: Array<() => Promise<void>> = [() => clickhouse.close()];
  try {
    await migrate(clickhouseMigrationTarget(clickhouse.client, { cluster: config.clickhouseCluster }), logger);
    await applyRetention(clickhouse.client, config.retentionDays, { cluster: config.clickhouseCluster });
    let connectionString = config.databaseUrl;
    let postgresPid: (() => number | undefined) | undefined;
    if (!connectionString) {
      const embedded = await startEmbeddedPostgres(config.dataDir, logger);
      cleanups.push(() => embedded.stop());
      connectionString = embedded.connectionString;
      postgresPid = () => embedded.pid();
    }
    const pool = createPool(connectionString);
    cleanups.push(() => pool.end());
    await migrate(postgresMigrationTarget(pool), logger);
    let clickhouseGatewayUrl: string | undefined;
    if (options.gateway && config.clickhouseGateway && clickhouse.chdb) {
      const gateway = await startClickHouseGateway({ connection: clickhouse.chdb, ...config.clickhouseGateway, logger });
      cleanups.push(() => gateway.close());
      clickhouseGatewayUrl = gateway.url;
      logger.info({ url: gateway.url }, 'ClickHouse gateway listening (embedded chDB over the ClickHouse HTTP interface)');
    }
    return {
      analytics: createAnalyticsStore(clickhouse, { logger, cluster: config.clickhouseCluster }),
      clickhouse: clickhouse.client,
      metadata: createMetadataStore(pool),
      clickhouseGatewayUrl,
      clickhouseWriteGate: clickhouse.writeGate,
      postgresPid,
      endpoints: [urlEndpoint(connectionString, () => 5432), urlEndpoint(clickhouseGatewayUrl, () => 80)].filter((e): e is OwnEndpoint => e !== undefined),
      close: () => runCleanups(cleanups, logger),
    };
  } catch (err) {
    await runCleanups(cleanups, logger);
    throw err;
  }
}

/** Runs cleanups last-opened first; one failing does not stop the others. */
export async function runCleanups(cleanups: Array<() => Promise<void>>, logger: Logger): Promise<void> {
  for (const cleanup of [...cleanups].reverse()) {
    try {
      await cleanup();
    } catch (err) {
      logger.warn({ err }, 'cleanup failed');
    }
  }
}
