import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, isAlive } from '../../core/os/processes.js';
import type { Logger } from '../../core/logger.js';
import { firstStart } from '../../core/os/first-start.js';
import { createRestarter } from '../../core/os/restarter.js';
import { prepareTemporalCli } from './temporal-cli.js';

export interface DevServer {
  /** Every port it listens on, all on 127.0.0.1 (gRPC frontend, HTTP API, metrics): the egress policy refuses them. */
  ports: number[];
  /** host:port of the frontend gRPC service. */
  address: string;
  /** The running dev server's pid (it changes when a dead one is restarted). */
  pid(): number | undefined;
  stop(): Promise<void>;
}

/** A dev server a killed process left running holds the database file: stop it before starting ours. */
async function stopOrphan(pidFile: string, logger: Logger): Promise<void> {
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  // Only a temporal process: the pid may have been reused by something else since.
  let cmdline = '';
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return;
  }
  if (!cmdline.includes('start-dev')) return;
  logger.warn({ pid }, 'stopping a Temporal dev server left running by an earlier process');
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

async function waitForPort(port: number, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Temporal dev server exited with code ${child.exitCode}: ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Temporal dev server did not listen on port ${port} within ${timeoutMs} ms: ${output()}`);
}

/** `count` free loopback ports, all different (the kernel may hand out one twice in a row). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

export interface DevServerOptions {
  dataDir: string;
  /** The `temporal` binary (workflows/engine/temporal-cli.ts); found or built as scripts/temporal.sh does when absent. */
  binary?: string;
  cliPath?: string;
  cacheDir: string;
  namespace: string;
  logger: Logger;
}

/**
 * The embedded workflow engine: `temporal server start-dev` as a child process on a free loopback
 * port, state in `<dataDir>/temporal/temporal.db` so runs survive a restart of this process. Its
 * pid is written next to the database; one orphaned by a kill -9 is stopped at the next start
 * (as with embedded PostgreSQL). A dev server that dies under us is restarted with backoff on the
 * same ports (core/os/restarter.ts): clients and the worker reconnect to the same address, and
 * runs in flight continue from its database.
 */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const { logger } = opts;
  const dir = path.join(opts.dataDir, 'temporal');
  fs.mkdirSync(dir, { recursive: true });
  const pidFile = path.join(dir, 'temporal.pid');
  await stopOrphan(pidFile, logger);
  const binary = opts.binary ?? (await prepareTemporalCli({ cliPath: opts.cliPath, cacheDir: opts.cacheDir, downloadUrl: 'none', logger }));
  // The HTTP API and metrics ports are chosen here, not left to the CLI, so the egress policy
  // knows them: the HTTP API answers anything the gRPC frontend does.
  // A free port may be taken by another process between our probe and the CLI's bind: the first
  // start picks new ports when the CLI says so (restarts keep the ports clients already know).
  let [port, httpPort, metricsPort] = await distinctFreePorts(3);
  const argsFor = () => [
    'server',
    'start-dev',
    '--headless',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--http-port',
    String(httpPort),
    '--metrics-port',
    String(metricsPort),
    '--db-filename',
    path.join(dir, 'temporal.db'),
    '--log-level',
    'warn',
    // WAL with synchronous=NORMAL: a commit survives this process being killed (the data is in
    // the WAL file the OS holds), only an OS crash can lose the last commits; each workflow step
    // no longer waits for an fsync.
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
    // The dev server runs one history shard whose transfer queue is polled at most 20 times a
    // second by default: every step of a run (start a case, dispatch a task, report a result)
    // waited 30-46 ms for that poll (docs/benchmarks.md).
    '--dynamic-config-value',
    'history.transferProcessorMaxPollRPS=1000',
    ...(opts.namespace === 'default' ? [] : ['--namespace', opts.namespace]),
  ];
  let args = argsFor();
  let stopping = false;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  async function launch(): Promise<void> {
    // Its own process group: a kill of ours by signal does not take it down mid-write; stop() does.
    const c = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let tail = '';
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-8000);
    };
    c.stdout?.on('data', keep);
    c.stderr?.on('data', keep);
    fs.writeFileSync(pidFile, String(c.pid));
    try {
      await waitForPort(port, c, () => tail, 60_000);
    } catch (err) {
      c.kill('SIGKILL');
      throw err;
    }
    child = c;
    exited = new Promise<void>((resolve) =>
      c.once('exit', (code, signal) => {
        resolve();
        if (!stopping) restarter.died(`exit code ${code ?? '-'}, signal ${signal ?? '-'}: ${tail.slice(-500)}`);
      }),
    );
  }
  const restarter = createRestarter({ name: 'Temporal dev server', logger, start: launch });
  await firstStart({
    attempts: 5,
    start: launch,
    portTaken: (err) => /address already in use/.test(String(err)),
    choosePorts: async (attempt) => {
      logger.warn({ attempt }, 'a port chosen for the Temporal dev server was taken meanwhile; choosing others');
      [port, httpPort, metricsPort] = await distinctFreePorts(3);
      args = argsFor();
    },
  });
  logger.info({ port, pid: child?.pid }, 'embedded Temporal dev server started');
  return {
    address: `127.0.0.1:${port}`,
    ports: [port, httpPort, metricsPort],
    pid: () => child?.pid,
    async stop() {
      stopping = true;
      await restarter.stop();
      const c = child;
      if (c && c.exitCode === null && c.signalCode === null) {
        c.kill('SIGTERM');
        const killed = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
        if (!killed) {
          c.kill('SIGKILL');
          await exited;
        }
      }
      fs.rmSync(pidFile, { force: true });
    },
  };
}
