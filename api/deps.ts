import type Router from '@koa/router';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import type { AnalyticsStore } from '../core/store/analytics.js';
import type { MetadataStore } from '../core/store/postgres/metadata-store.js';
import type { ScorerRegistry } from '../core/scoring/scorer.js';
import type { Collector } from '../collector/index.js';
import type { RunEngine } from '../workflows/client.js';
import type { Authenticator } from '../core/auth/authenticator.js';
import type { RateLimiter } from '../core/limits/rate-limiter.js';
import type { UiSource } from './ui.js';
import type { PriceTable } from '../core/cost/price-table.js';
import type { Egress } from '../core/egress/fetch.js';
import type { HealthDeps } from './routes/health.js';
import type { MetricsDeps } from './routes/metrics.js';

/**
 * Everything the API needs, passed in by the entry point (STYLE 3). Health and metrics read only
 * their part (HealthDeps, MetricsDeps), which a process without the API builds too.
 */
export interface ApiDeps extends HealthDeps, MetricsDeps {
  config: Pick<Config, 'maxBodyBytes' | 'version' | 'metricsToken'>;
  logger: Logger;
  analytics: AnalyticsStore;
  metadata: MetadataStore;
  /** Who is calling (API keys, JWTs, or `AUTH_MODE=none`). */
  auth: Authenticator;
  limiter: RateLimiter;
  collector: Collector;
  /** The scorers this process knows: suites and runs are checked against them when created. */
  scorers: ScorerRegistry;
  /** The egress policy: URLs users register (agents, custom scorers, webhooks) are refused here when literal addresses it refuses. */
  egress: Pick<Egress, 'refusalOfUrl' | 'fetch'>;
  /** The workflow engine's run calls; absent where this process has no engine (run routes answer 503). */
  engine?: RunEngine;
  /** The price table (docs/costs.md): POST /api/admin/recompute-costs reprices stored spans with it; the shipped one when absent. */
  prices?: PriceTable;
  /** The OTLP/HTTP route, so one port can serve everything. */
  otlpRouter?: Router;
  /** The dashboard on this port (api/ui.ts): `handler` null when it is not built; absent, no dashboard paths. */
  ui?: UiSource;
}
