import type Router from '@koa/router';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import type { AnalyticsStore } from '../core/store/analytics.js';
import type { MetadataStore } from '../core/store/postgres/metadata-store.js';
import type { Collector, SinkStats } from '../collector/index.js';

/** Everything the API needs, passed in by the entry point (STYLE 3). */
export interface ApiDeps {
  config: Pick<Config, 'maxBodyBytes' | 'version' | 'temporalAddress'>;
  logger: Logger;
  analytics: AnalyticsStore;
  metadata: MetadataStore;
  collector: Collector;
  /** Write-path buffer state for /api/health and /metrics: local, answers at once. */
  sinkStats?: () => SinkStats | undefined;
  /**
   * The Kafka consumer group's lag, where this process runs the ingester: a round trip to Kafka,
   * so health and metrics bound it and report Kafka down when it does not answer in time.
   */
  consumerLag?: () => Promise<number>;
  /** The OTLP/HTTP route, so one port can serve everything. */
  otlpRouter?: Router;
}
