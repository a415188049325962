import fs from 'node:fs';
import path from 'node:path';
import Koa from 'koa';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import { createApp } from '../api/app.js';
import { createCollector, createOtlpHttpRouter, startOtlpGrpcServer } from '../collector/index.js';
import { listen } from './http-server.js';
import type { ClickHouseClient } from '../core/store/clickhouse/client.js';
import { openStores, runCleanups } from './stores.js';
import { openWritePath, type WritePath } from './write-path.js';

export interface RunningService {
  apiUrl?: string;
  otlpHttpUrl?: string;
  otlpGrpcAddress?: string;
  defaultProjectId: string;
  writePath: WritePath;
  /** The analytical store's client (see Stores.clickhouse). */
  clickhouse: ClickHouseClient;
  stop(): Promise<void>;
}

/** `$AGENT_EVAL_DATA_DIR/credentials.json`: what a local user needs to send traces. */
function writeCredentials(dataDir: string, projectId: string): void {
  const file = path.join(dataDir, 'credentials.json');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ project_id: projectId }, null, 2)}\n`, { mode: 0o600 });
}

/**
 * Starts the roles of `config.roles` in this process, wired to real stores (STYLE 3: the only
 * place that does). `stop()` drains in reverse order of start: listeners stop accepting, the
 * write path flushes (and the ingester commits), then the stores close.
 */
export async function startService(config: Config, logger: Logger): Promise<RunningService> {
  const stores = await openStores(config, logger);
  const cleanups: Array<() => Promise<void>> = [() => stores.close()];
  try {
    const project = await stores.metadata.ensureDefaultProject();
    writeCredentials(config.dataDir, project.id);

    const writePath = await openWritePath(config, stores.analytics, logger);
    cleanups.push(() => writePath.close());
    const result: RunningService = { defaultProjectId: project.id, writePath, clickhouse: stores.clickhouse, stop: () => runCleanups(cleanups, logger) };
    const sink = writePath.sink;
    if (!sink) return result;

    const collector = createCollector({ sink, maxSpanBytes: config.maxSpanBytes });
    const otlpRouter = () => createOtlpHttpRouter({ collector, maxBodyBytes: config.otlpMaxMessageBytes, defaultProjectId: project.id, logger });

    if (config.roles.includes('collector')) {
      const grpc = await startOtlpGrpcServer({
        collector,
        port: config.otlpGrpcPort,
        host: config.host,
        maxMessageBytes: config.otlpMaxMessageBytes,
        defaultProjectId: project.id,
        logger,
      });
      cleanups.push(() => grpc.close());
      result.otlpGrpcAddress = `127.0.0.1:${grpc.port}`;
      const otlpApp = new Koa();
      otlpApp.silent = true;
      const router = otlpRouter();
      otlpApp.use(router.routes()).use(router.allowedMethods());
      const http = await listen(otlpApp, config.otlpHttpPort, config.host);
      cleanups.push(() => http.close());
      result.otlpHttpUrl = `http://127.0.0.1:${http.port}`;
      logger.info({ grpc: grpc.port, http: http.port }, 'OTLP receivers listening');
    }

    if (config.roles.includes('api')) {
      const app = createApp({
        config,
        logger,
        analytics: stores.analytics,
        metadata: stores.metadata,
        collector,
        sinkStats: () => writePath.stats(),
        consumerLag: writePath.consumerLag,
        otlpRouter: otlpRouter(),
      });
      const server = await listen(app, config.port, config.host);
      cleanups.push(() => server.close());
      result.apiUrl = `http://127.0.0.1:${server.port}`;
      logger.info({ port: server.port }, 'API listening');
    }
    return result;
  } catch (err) {
    await runCleanups(cleanups, logger);
    throw err;
  }
}
