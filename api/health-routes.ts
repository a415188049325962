/**
 * What a process without the api role serves on HEALTH_PORT (runtime/health-server.ts): the API's
 * health and metrics routers with its error and header middleware, so both ports answer alike. The
 * API's public surface is this file, app.ts (createApp) and ui.ts (the dashboard's mount).
 */
export { errorMiddleware } from './middleware/errors.js';
export { securityHeaders } from './middleware/security-headers.js';
export { healthRouter, type HealthDeps, type ServiceName } from './routes/health.js';
export { metricsRouter, type MetricsDeps } from './routes/metrics.js';
