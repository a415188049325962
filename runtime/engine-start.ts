import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import { errorMessage } from '../core/errors.js';
import type { RunEngine } from '../workflows/client.js';
import { startDevServer, type DevServer } from '../workflows/engine/dev-server.js';
import { createEngineGate, type EngineGate } from '../workflows/engine/engine-status.js';
import { ENGINE_FIX, EngineSetupError, prepareTemporalCli } from '../workflows/engine/temporal-cli.js';

export interface EngineEndpoint {
  address: string;
  namespace: string;
  /** The embedded dev server's ports on 127.0.0.1 (none for TEMPORAL_ADDRESS). */
  ports: number[];
}

export interface BackgroundEngineOptions {
  config: Config;
  logger: Logger;
  /** Called once the engine has an address, before the run engine is handed out (the egress policy learns its ports). */
  onEndpoint(endpoint: EngineEndpoint): void;
  /** Starts what uses the engine in this process (the worker); its stop joins the engine's. */
  onReady?(endpoint: EngineEndpoint): Promise<{ stop(): Promise<void> } | undefined>;
}

export interface BackgroundEngine {
  gate: EngineGate;
  /** Settles when the engine is ready or cannot be prepared (never rejects). */
  settled: Promise<void>;
  /** The dev server, once started (tests kill it to see it come back). */
  devServer(): DevServer | undefined;
  stop(): Promise<void>;
}

/**
 * The workflow engine, prepared in the background so the API and the collector answer at once
 * (docs/deployment.md, "First start"): TEMPORAL_ADDRESS as it is, else the Temporal CLI found,
 * downloaded or built (workflows/engine/temporal-cli.ts) and its dev server started. Until then
 * the gate's run engine answers 503 with what is under way; when the engine cannot be prepared,
 * 503 with how to provide it, and tracing goes on.
 */
export function startEngineInBackground(opts: BackgroundEngineOptions): BackgroundEngine {
  const { config, logger } = opts;
  const gate = createEngineGate();
  let stopped = false;
  let server: DevServer | undefined;
  let runEngine: RunEngine | undefined;
  let user: { stop(): Promise<void> } | undefined;
  const started = Date.now();

  async function prepare(): Promise<void> {
    let endpoint: EngineEndpoint;
    const { temporal } = config;
    if (temporal.address) {
      endpoint = { address: temporal.address, namespace: temporal.namespace, ports: [] };
    } else {
      const binary = await prepareTemporalCli({
        cliPath: temporal.cliPath,
        cacheDir: config.cacheDir,
        downloadUrl: temporal.downloadUrl,
        sha256: temporal.sha256,
        logger,
        onStep: (step) => gate.step(step),
      });
      if (stopped) return;
      gate.step('starting the Temporal dev server');
      logger.info('starting the Temporal dev server');
      const dev = await startDevServer({ dataDir: config.dataDir, binary, cacheDir: config.cacheDir, namespace: temporal.namespace, logger });
      // Stopped while it started: stop() has already run, so this start is undone here.
      if (stopped) return dev.stop();
      server = dev;
      endpoint = { address: server.address, namespace: temporal.namespace, ports: server.ports };
    }
    opts.onEndpoint(endpoint);
    const { evals } = config;
    // Loaded here, not at start: the Temporal SDK takes a second or more to load, which the API need not wait for.
    const { createRunEngine } = await import('../workflows/client.js');
    runEngine = createRunEngine({
      address: endpoint.address,
      namespace: endpoint.namespace,
      taskQueue: temporal.taskQueue,
      defaultConcurrency: evals.maxConcurrency,
      policy: {
        pauseMaxMs: evals.pauseMaxMs,
        approvalMaxMs: evals.approvalMaxMs,
        retryTimeScale: evals.retryTimeScale,
        historyMaxEvents: evals.historyMaxEvents,
      },
    });
    // Runs can start before this process's worker polls: their tasks wait in the engine's queue.
    gate.ready(runEngine);
    logger.info({ address: endpoint.address, ms: Date.now() - started }, 'workflow engine ready');
    const using = await opts.onReady?.(endpoint);
    if (stopped) await using?.stop();
    else user = using;
  }

  const settled = prepare().catch((err: unknown) => {
    if (stopped) return;
    const fix = err instanceof EngineSetupError ? err.fix : `see the error above; ${ENGINE_FIX}`;
    gate.unavailable(errorMessage(err), fix);
    logger.error({ err: errorMessage(err), fix }, 'workflow engine not available: tracing works, runs answer 503 until it is provided');
  });

  return {
    gate,
    settled,
    devServer: () => server,
    async stop() {
      stopped = true;
      // A Go build under way is left to finish into the cache (the next start uses it); what started is stopped.
      await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      await user?.stop();
      await runEngine?.close();
      await server?.stop();
    },
  };
}
