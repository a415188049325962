import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distCurrent, exited, pollUntil, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { makeDataDir } from '../helpers/server.js';
import { freePort } from '../../core/os/processes.js';
import { createLogger } from '../../core/logger.js';
import { startDevServer, type DevServer } from '../../workflows/engine/dev-server.js';

/**
 * SPEC: a worker that cannot reach the workflow engine exits with code 1 after
 * MAX_RECONNECT_ATTEMPTS attempts RECONNECT_DELAY_MS apart (exponential backoff), at start-up
 * and when an external engine disappears later alike (the SDK alone would retry its polls forever).
 */

const ATTEMPTS = 3;
const DELAY_MS = 200;
const env = (address: string) => ({
  AGENT_EVAL_ROLES: 'worker',
  TEMPORAL_ADDRESS: address,
  MAX_RECONNECT_ATTEMPTS: String(ATTEMPTS),
  RECONNECT_DELAY_MS: String(DELAY_MS),
});

let worker: ServiceProcess | undefined;
let engine: DevServer | undefined;

// The tests time the worker's start: the compiled service is built (when stale) before.
beforeAll(() => distCurrent(), 300_000);

afterAll(async () => {
  await stopProcess(worker);
  await engine?.stop();
});

function attemptsLogged(output: string): number {
  return output.split('\n').filter((line) => line.includes('"workflow engine unreachable; reconnecting"')).length;
}

describe('worker against an external engine', () => {
  it('exits 1 after the configured attempts when the engine is unreachable at start-up', async () => {
    const nobody = await freePort();
    const started = Date.now();
    const p = await spawnServiceProcess(makeDataDir('agent-eval-worker-unreachable-'), env(`127.0.0.1:${nobody}`), 90_000, { waitForEngine: false }).catch(
      (err: Error) => err,
    );
    // It may give up before or after its ready line: either way it exits 1.
    if (p instanceof Error) expect(p.message).toMatch(/exited \(1\)/);
    else {
      worker = p;
      expect((await exited(p.child, 60_000)).code).toBe(1);
      expect(attemptsLogged(p.output())).toBe(ATTEMPTS - 1);
      expect(p.output()).toContain('workflow engine unreachable after every reconnect attempt');
    }
    // 200 + 400 ms of backoff: seconds, not the SDK's endless retries.
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('exits 1 after the configured attempts when the engine disappears after start-up', async () => {
    engine = await startDevServer({
      dataDir: makeDataDir('agent-eval-worker-engine-'),
      cacheDir: process.env.AGENT_EVAL_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'agent-eval'),
      namespace: 'default',
      logger: createLogger('silent'),
    });
    worker = await spawnServiceProcess(makeDataDir('agent-eval-worker-lost-'), env(engine.address));
    await pollUntil('the worker to poll', () => Promise.resolve(worker!.output().includes('evaluation worker polling') ? true : undefined), {
      timeoutMs: 60_000,
    });
    // A few healthy checks pass first: the worker keeps running while its engine answers.
    await new Promise((r) => setTimeout(r, DELAY_MS * 4));
    expect(worker.child.exitCode).toBeNull();
    // A clean stop: the dev server is not restarted (its supervisor restarts only an unexpected death).
    await engine.stop();
    engine = undefined;
    const lostAt = Date.now();
    const { code } = await exited(worker.child, 90_000);
    expect(code).toBe(1);
    expect(attemptsLogged(worker.output())).toBeGreaterThanOrEqual(ATTEMPTS - 1);
    expect(worker.output()).toContain('workflow engine unreachable after every reconnect attempt');
    expect(Date.now() - lostAt).toBeLessThan(60_000);
  });
});
