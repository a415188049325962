import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { Logger } from '../core/logger.js';
import { errorMessage, toError } from '../core/errors.js';
import { siblingModule } from '../core/os/package-files.js';
import type { EvalActivities } from './activity-types.js';
import { wakeableSleep } from '../core/os/wakeable-sleep.js';

const WORKFLOWS_PATH = fileURLToPath(siblingModule(import.meta.url, 'workflows'));
/** The files the workflow bundle is built from: their content names the cached bundle. */
const BUNDLE_SOURCES = ['workflows', 'case-trial', 'case-trial-v1', 'conversation-trial', 'activity-options', 'contract', 'activity-types'].map((name) =>
  fileURLToPath(siblingModule(import.meta.url, name)),
);

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  activities: EvalActivities;
  cacheDir: string;
  reconnect: { maxAttempts: number; delayMs: number };
  logger: Logger;
  /** Called once when the engine stayed unreachable through every reconnect attempt (SPEC: exit 1). */
  onFatal(err: Error): void;
}

export interface RunningWorker {
  stop(): Promise<void>;
}

/**
 * The workflow bundle, built once per content of the workflow files and cached on disk: webpack
 * takes seconds on two cores, and every start of the service would pay it.
 */
async function workflowBundle(cacheDir: string, logger: Logger): Promise<{ code: string }> {
  const hash = crypto.createHash('sha256');
  const require = createRequire(import.meta.url);
  hash.update(String((require('@temporalio/workflow/package.json') as { version: string }).version));
  for (const file of BUNDLE_SOURCES) hash.update(fs.readFileSync(file));
  const file = path.join(cacheDir, 'workflow-bundles', `${hash.digest('hex').slice(0, 24)}.js`);
  if (fs.existsSync(file)) return { code: fs.readFileSync(file, 'utf8') };
  const started = Date.now();
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: { trace() {}, debug() {}, info() {}, log() {}, warn: (m) => logger.warn(m), error: (m) => logger.error(m) },
  });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, code);
  fs.renameSync(tmp, file);
  logger.info({ ms: Date.now() - started }, 'workflow bundle built');
  return { code };
}

/**
 * The Temporal SDK logs to stderr by default; route its warnings and errors into ours. The
 * runtime is process-wide and installed once (a second service in one process shares it).
 */
function installRuntimeLogger(logger: Logger): void {
  if (Runtime._instance) return;
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      const meta = { temporal: entry.meta };
      if (entry.level === 'ERROR') logger.error(meta, entry.message);
      else logger.warn(meta, entry.message);
    }),
  });
}

/** Exponential backoff from `delayMs`, each wait capped at a minute. */
export function reconnectDelay(attempt: number, delayMs: number): number {
  return Math.min(60_000, delayMs * 2 ** (attempt - 1));
}

/** How long one connection check of a running worker may take. */
function probeDeadlineMs(delayMs: number): number {
  return Math.max(1_000, Math.min(delayMs, 5_000));
}

/**
 * Runs the evaluation worker until stopped. It connects with exponential backoff and, when a
 * running worker fails (the engine went away), connects again; after `maxAttempts` failed
 * attempts in a row it gives up through `onFatal`. A running worker does not fail when its
 * engine goes away (the SDK retries its polls forever), so its connection is also checked every
 * `delayMs`: an engine that does not answer is asked again with the same backoff, and after
 * `maxAttempts` failed checks in a row the worker gives up the same way (SPEC: exit 1).
 */
export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  const { logger } = opts;
  installRuntimeLogger(logger);
  const bundle = await workflowBundle(opts.cacheDir, logger);
  let stopping = false;
  let worker: Worker | undefined;
  let connection: NativeConnection | undefined;
  let fatal = false;

  const { sleep, wake } = wakeableSleep();

  async function connect(): Promise<NativeConnection | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await NativeConnection.connect({ address: opts.address });
      } catch (err) {
        if (stopping) return undefined;
        if (attempt >= opts.reconnect.maxAttempts) throw toError(err);
        const delay = reconnectDelay(attempt, opts.reconnect.delayMs);
        logger.warn({ attempt, delay_ms: delay, err: errorMessage(err) }, 'workflow engine unreachable; reconnecting');
        await sleep(delay);
        if (stopping) return undefined;
      }
    }
  }

  /** Whether the engine answers on this connection within the probe deadline. */
  async function reachable(conn: NativeConnection): Promise<string | undefined> {
    try {
      await conn.withDeadline(Date.now() + probeDeadlineMs(opts.reconnect.delayMs), () => conn.workflowService.getSystemInfo({}));
      return undefined;
    } catch (err) {
      return errorMessage(err);
    }
  }

  /** Checks a running worker's engine until the worker stops; gives up after maxAttempts failed checks in a row. */
  async function watch(conn: NativeConnection, running: Worker): Promise<void> {
    let failures = 0;
    const live = () => ['INITIALIZED', 'RUNNING'].includes(running.getState());
    while (!stopping && worker === running && live()) {
      await sleep(failures === 0 ? opts.reconnect.delayMs : reconnectDelay(failures, opts.reconnect.delayMs));
      if (stopping || worker !== running) return;
      const error = await reachable(conn);
      if (error === undefined) {
        if (failures > 0) logger.info({ attempts: failures }, 'workflow engine reachable again; evaluation worker polling');
        failures = 0;
        continue;
      }
      failures++;
      if (failures >= opts.reconnect.maxAttempts) {
        fatal = true;
        logger.error({ attempts: failures, err: error }, 'workflow engine unreachable after every reconnect attempt');
        if (running.getState() === 'RUNNING') running.shutdown();
        opts.onFatal(new Error(`workflow engine unreachable after ${failures} reconnect attempts: ${error}`));
        return;
      }
      logger.warn({ attempt: failures, delay_ms: reconnectDelay(failures, opts.reconnect.delayMs), err: error }, 'workflow engine unreachable; reconnecting');
    }
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      connection = await connect();
      if (!connection || stopping) break;
      worker = await Worker.create({
        connection,
        namespace: opts.namespace,
        taskQueue: opts.taskQueue,
        workflowBundle: bundle,
        activities: opts.activities,
        shutdownGraceTime: '5 seconds',
      });
      // stop() may have been called while the worker was being created: it could not shut it down then.
      if (stopping) {
        await connection.close().catch(() => undefined);
        break;
      }
      try {
        logger.info({ task_queue: opts.taskQueue }, 'evaluation worker polling');
        const running = worker;
        const run = running.run();
        void watch(connection, running);
        await run;
        if (fatal) break;
      } catch (err) {
        if (stopping || fatal) break;
        logger.warn({ err: errorMessage(err) }, 'evaluation worker stopped; reconnecting');
      } finally {
        worker = undefined;
        await connection.close().catch(() => undefined);
        connection = undefined;
      }
    }
  }

  const done = loop().catch((err: unknown) => {
    if (!stopping && !fatal) {
      logger.error({ err: errorMessage(err) }, 'workflow engine unreachable after every reconnect attempt');
      opts.onFatal(toError(err));
    }
  });

  return {
    async stop() {
      stopping = true;
      wake();
      if (worker && worker.getState() === 'RUNNING') worker.shutdown();
      // A worker whose engine is gone may not finish its shutdown (its polls are still retried):
      // do not hang the process's stop on it, and after giving up on the engine barely wait at all.
      await Promise.race([done, new Promise((resolve) => setTimeout(resolve, fatal ? 2_000 : 15_000).unref())]);
    },
  };
}
