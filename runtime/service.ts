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
import { openWorkflowEngine } from './workflow-engine.js';
import { createRunEngine, type RunEngine } from '../workflows/client.js';
import { createActivities } from '../workflows/activities.js';
import { startWorker } from '../workflows/worker.js';
import { defaultScorerRegistry } from '../core/scoring/index.js';

export interface RunningService {
  apiUrl?: string;
  otlpHttpUrl?: string;
  otlpGrpcAddress?: string;
  defaultProjectId: string;
  writePath: WritePath;
  /** The analytical store's client (see Stores.clickhouse). */
  clickhouse: ClickHouseClient;
  /** The workflow engine's address (embedded dev server or TEMPORAL_ADDRESS), where this process uses one. */
  temporalAddress?: string;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** The evaluation worker could not reach the workflow engine through every reconnect attempt (SPEC: exit 1). */
  onFatal?(err: Error): void;
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
export async function startService(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<RunningService> {
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
    const scorers = defaultScorerRegistry();
    let engine: RunEngine | undefined;
    if (config.roles.includes('api') || config.roles.includes('worker')) {
      const endpoint = await openWorkflowEngine(config, logger);
      cleanups.push(() => endpoint.stop());
      result.temporalAddress = endpoint.address;
      const { evals } = config;
      const runEngine = createRunEngine({
        address: endpoint.address,
        namespace: endpoint.namespace,
        taskQueue: config.temporal.taskQueue,
        defaultConcurrency: evals.maxConcurrency,
        policy: {
          pauseMaxMs: evals.pauseMaxMs,
          approvalMaxMs: evals.approvalMaxMs,
          retryTimeScale: evals.retryTimeScale,
          historyMaxEvents: evals.historyMaxEvents,
        },
      });
      engine = runEngine;
      cleanups.push(() => runEngine.close());
      if (config.roles.includes('worker')) {
        const worker = await startWorker({
          address: endpoint.address,
          namespace: endpoint.namespace,
          taskQueue: config.temporal.taskQueue,
          activities: createActivities({ runs: stores.metadata.runs, agents: stores.metadata.agents, collector, analytics: stores.analytics, scorers, logger }),
          cacheDir: config.cacheDir,
          reconnect: config.reconnect,
          logger,
          onFatal: (err) => options.onFatal?.(err),
        });
        cleanups.push(() => worker.stop());
      }
    }
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
        scorers,
        engine,
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
