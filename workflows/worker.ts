import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { Logger } from '../core/logger.js';
import { errorMessage, toError } from '../core/errors.js';
import type { EvalActivities } from './activity-types.js';

const WORKFLOWS_PATH = fileURLToPath(new URL('./workflows.ts', import.meta.url));
/** The files the workflow bundle is built from: their content names the cached bundle. */
const BUNDLE_SOURCES = ['workflows.ts', 'contract.ts', 'activity-types.ts'].map((f) => fileURLToPath(new URL(`./${f}`, import.meta.url)));

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
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: { trace() {}, debug() {}, info() {}, log() {}, warn: (m) => logger.warn(m), error: (m) => logger.error(m) } });
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

/**
 * Runs the evaluation worker until stopped. It connects with exponential backoff and, when a
 * running worker fails (the engine went away), connects again; after `maxAttempts` failed
 * attempts in a row it gives up through `onFatal`.
 */
export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  const { logger } = opts;
  installRuntimeLogger(logger);
  const bundle = await workflowBundle(opts.cacheDir, logger);
  let stopping = false;
  let worker: Worker | undefined;
  let connection: NativeConnection | undefined;
  let wake: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

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
        await worker.run();
      } catch (err) {
        if (stopping) break;
        logger.warn({ err: errorMessage(err) }, 'evaluation worker stopped; reconnecting');
      } finally {
        worker = undefined;
        await connection.close().catch(() => undefined);
        connection = undefined;
      }
    }
  }

  const done = loop().catch((err: unknown) => {
    if (!stopping) {
      logger.error({ err: errorMessage(err) }, 'workflow engine unreachable after every reconnect attempt');
      opts.onFatal(toError(err));
    }
  });

  return {
    async stop() {
      stopping = true;
      wake?.();
      if (worker && worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
