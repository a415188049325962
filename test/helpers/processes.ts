import fs from 'node:fs';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { SERVICE_NODE_FLAGS } from '../../runtime/node-flags.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * What every test service starts with, in this process (startTestService) or a child one
 * (spawnServiceProcess): ephemeral ports on loopback; and egress to loopback, where the agents,
 * custom scorers and webhooks of tests are fixture servers (the default on a loopback HOST too,
 * named here so no test depends on it; test/integration/egress.test.ts sets its own).
 */
export const TEST_SERVICE_ENV: Record<string, string> = {
  PORT: '0',
  OTLP_GRPC_PORT: '0',
  OTLP_HTTP_PORT: '0',
  HEALTH_PORT: '0',
  HOST: '127.0.0.1',
  EGRESS_ALLOW: '127.0.0.0/8,::1/128',
};

/**
 * Limits high enough that tests never meet them, unless a test sets its own: rate limits, and no
 * throttling of failed authentication (tests of refusals send many wrong keys from 127.0.0.1;
 * test/integration/auth-throttling.test.ts sets its own limits).
 */
export const UNLIMITED: Record<string, string> = {
  RATE_LIMIT_INGEST_PER_MINUTE: '1000000000',
  RATE_LIMIT_QUERY_PER_MINUTE: '1000000000',
  RATE_LIMIT_EVAL_RUNS_PER_MINUTE: '1000000000',
  AUTH_FAILURES_PER_ADDRESS_PER_MINUTE: '0',
  AUTH_FAILURES_PER_KEY_PREFIX_PER_MINUTE: '0',
};

/**
 * `agent-eval serve` as a child OS process, for tests that split roles across processes, kill
 * them or watch their memory. It reports every listener of the ready line (a `collector`-only
 * or `ingester`-only process has no API port: `apiUrl` is then undefined).
 */
export interface ServiceProcess {
  child: ChildProcess;
  dataDir: string;
  roles: string[];
  projectId: string;
  apiUrl?: string;
  otlpHttpUrl?: string;
  /** host:port of the OTLP/gRPC receiver. */
  otlpGrpcAddress?: string;
  /** `/api/health` and `/metrics` of a process without the api role (HEALTH_PORT). */
  healthUrl?: string;
  /** The ClickHouse gateway (CLICKHOUSE_GATEWAY_PORT), without credentials. */
  clickhouseGatewayUrl?: string;
  /** Everything the process wrote to stdout/stderr so far (last 400 kB). */
  output(): string;
}

interface ReadyLine {
  roles: string[];
  project_id: string;
  api?: string;
  otlp_http?: string;
  otlp_grpc?: string;
  health?: string;
  clickhouse_gateway?: string;
}

const live = new Set<ChildProcess>();
// A crashed test worker must not leave servers (and their chDB / PostgreSQL) behind.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * `waitForEngine` (default true): return once the workflow engine, prepared in the background by
 * `serve`, is ready or known unavailable, as well as the listeners (a process with the api or
 * worker role); false returns at the ready line, as a user sees the API answer.
 * `entry`: `dist` (default) runs the compiled dist/main.js with no TypeScript loader, as
 * `npm start` and the container do, built first when a source is newer (buildDist: at once when
 * current, as after `npm ci`, whose `prepare` builds it); `sources` runs main.ts through tsx,
 * which transpiles the service at every start (about 2 s more CPU per process).
 * `freshPostgres`: run `initdb` in a new data dir, as a first start on a new machine does; by
 * default a new data dir gets a copy of an initialised cluster (seedServicePostgres).
 */
export async function spawnServiceProcess(
  dataDir: string,
  env: Record<string, string> = {},
  startTimeoutMs = 90_000,
  opts: { waitForEngine?: boolean; entry?: 'sources' | 'dist'; freshPostgres?: boolean } = {},
): Promise<ServiceProcess> {
  if (!opts.freshPostgres && !env.DATABASE_URL) {
    // Loaded here: the unit tests that import this module for its small helpers need none of it.
    const { seedServicePostgres } = await import('./service-postgres.js');
    await seedServicePostgres(dataDir);
  }
  let entry = ['--import', 'tsx', 'main.ts'];
  if (opts.entry !== 'sources') {
    await distCurrent();
    entry = ['dist/main.js'];
  }
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...entry, 'serve'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ...TEST_SERVICE_ENV,
      LOG_LEVEL: 'info',
      AGENT_EVAL_DATA_DIR: dataDir,
      // These tests look at processes, Kafka, backpressure and durability across restarts, not
      // at credentials (test/integration/auth*.test.ts do, in and out of process); a test that
      // wants keys sets AUTH_MODE itself.
      AUTH_MODE: 'none',
      ...UNLIMITED,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let out = '';
  const append = (d: Buffer) => (out = (out + d.toString()).slice(-400_000));
  child.stdout.on('data', append);
  child.stderr.on('data', append);

  const ready = await new Promise<ReadyLine>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      // SIGTERM first: a service stopped while it starts still stops the PostgreSQL it started
      // (SIGKILL would leave it running, holding its port and data dir), then SIGKILL if it hangs.
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      reject(new Error(`service did not start within ${startTimeoutMs} ms:\n${out.slice(-8000)}`));
    }, startTimeoutMs);
    let readyLine: ReadyLine | undefined;
    let engineSettled = opts.waitForEngine === false;
    const onData = (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line.includes('"workflow engine ready"') || line.includes('"workflow engine not available')) engineSettled = true;
        if (line.includes('"agent-eval ready"')) {
          readyLine = JSON.parse(line) as ReadyLine;
          // A process without the api or worker role has no engine to wait for.
          if (!readyLine.roles.some((r) => r === 'api' || r === 'worker')) engineSettled = true;
        }
        if (!readyLine || !engineSettled) continue;
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.off('exit', onExit);
        resolve(readyLine);
        return;
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`service exited (${code ?? signal}) before it was ready:\n${out.slice(-8000)}`));
    };
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
  return {
    child,
    dataDir,
    roles: ready.roles,
    projectId: ready.project_id,
    apiUrl: ready.api,
    otlpHttpUrl: ready.otlp_http,
    otlpGrpcAddress: ready.otlp_grpc,
    healthUrl: ready.health,
    clickhouseGatewayUrl: ready.clickhouse_gateway,
    output: () => out,
  };
}

/** Resolves with the exit code (null when killed by a signal); rejects after `timeoutMs`. */
export function exited(child: ChildProcess, timeoutMs = 60_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process ${child.pid} did not exit within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

/** SIGTERM, then SIGKILL when it does not exit in time; for cleanup after a failed test. */
export async function stopProcess(p: ServiceProcess | undefined, timeoutMs = 60_000): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  try {
    await exited(p.child, timeoutMs);
  } catch {
    p.child.kill('SIGKILL');
    await exited(p.child, 10_000).catch(() => undefined);
  }
}

/**
 * dist/ as `npm start` makes it first (scripts/build-dist.mjs --if-stale): built when a source is
 * newer, at once otherwise; concurrent builds wait for one another. For tests of the compiled
 * service, and of the CLI as an installed package runs it (bin/agent-eval.js runs dist/ when it is
 * current, else main.ts through tsx's loader, a second or more of every command's start).
 */
export function buildDist(): Promise<void> {
  return runBuildDist();
}

let checked: Promise<void> | undefined;

/**
 * buildDist once per test file (its worker process): the service processes it starts then run
 * the same build. A failed build is not kept, so a later start tries again. A test that times a
 * service's start awaits it first, so a build (tens of seconds) is not counted in the start.
 */
export function distCurrent(): Promise<void> {
  checked ??= runBuildDist();
  checked.catch(() => (checked = undefined));
  return checked;
}

function runBuildDist(): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['scripts/build-dist.mjs', '--if-stale'], { cwd: REPO_ROOT, timeout: 300_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`building dist/ failed: ${err.message}\n${stdout}\n${stderr}`)) : resolve(),
    );
  });
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `probe` every `intervalMs` until it returns something other than undefined, and returns
 * that. After `timeoutMs` it throws with `what` and the last value `describe` gave.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  opts: { timeoutMs?: number; intervalMs?: number; describe?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = opts.describe?.() ?? (lastError instanceof Error ? String(lastError) : lastError ? inspect(lastError) : '');
      throw new Error(`timed out after ${opts.timeoutMs ?? 60_000} ms waiting for ${what}${detail ? `: ${detail}` : ''}`);
    }
    await sleep(opts.intervalMs ?? 250);
  }
}

/** Runs `worker` for items 0..count-1 with at most `concurrency` at once. */
export async function forEachConcurrently(count: number, concurrency: number, worker: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await worker(next++);
    }),
  );
}
