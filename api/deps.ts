import type Router from '@koa/router';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import type { AnalyticsStore } from '../core/store/analytics.js';
import type { MetadataStore } from '../core/store/postgres/metadata-store.js';
import type { Ingest } from '../collector/ingest.js';
import type { SinkStats } from '../collector/sink.js';

/** Everything the API needs, passed in by the entry point (STYLE 3). */
export interface ApiDeps {
  config: Pick<Config, 'maxBodyBytes' | 'version' | 'temporalAddress'>;
  logger: Logger;
  analytics: AnalyticsStore;
  metadata: MetadataStore;
  ingest: Ingest;
  /** Write-path state for /api/health (buffer, Kafka lag). */
  sinkStats?: () => Promise<SinkStats | undefined>;
  /** The OTLP/HTTP route, so one port can serve everything. */
  otlpRouter?: Router;
}
