import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, makeTelemetryFilterString, type WorkflowBundle } from '@temporalio/worker';
import type { EvalActivities } from '../../workflows/activity-types.js';

const TEMPORAL_SCRIPT = fileURLToPath(new URL('../../scripts/temporal.sh', import.meta.url));
const WORKFLOWS = fileURLToPath(new URL('../../workflows/workflows.ts', import.meta.url));

/**
 * The run workflows on a real engine with activities the test supplies: the Temporal CLI's dev
 * server (the one the global setup built; `TestWorkflowEnvironment.createLocal`, no time skipping,
 * so tests configure short bounds) and the workflow bundle, one of each per test file.
 */
export interface WorkflowEnv {
  env: TestWorkflowEnvironment;
  bundle: WorkflowBundle;
  /** Runs `fn` while a worker with these activities polls a task queue of its own. */
  withWorker<T>(activities: EvalActivities, fn: (taskQueue: string) => Promise<T>): Promise<T>;
  teardown(): Promise<void>;
}

let queues = 0;

export async function startWorkflowEnv(): Promise<WorkflowEnv> {
  // The SDK logs every worker state change, and every activity the tests make fail; errors only.
  if (!Runtime._instance)
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
  const path = execFileSync('bash', [TEMPORAL_SCRIPT, 'path'], { encoding: 'utf8' }).trim();
  const [env, bundle] = await Promise.all([
    TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'existing-path', path }, extraArgs: ['--log-level', 'error'] } }),
    bundleWorkflowCode({ workflowsPath: WORKFLOWS, logger: new DefaultLogger('WARN') }),
  ]);
  return {
    env,
    bundle,
    async withWorker(activities, fn) {
      const taskQueue = `workflow-test-${process.pid}-${++queues}`;
      const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities });
      return worker.runUntil(fn(taskQueue));
    },
    teardown: () => env.teardown(),
  };
}
