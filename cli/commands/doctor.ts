import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Command } from 'commander';
import { action } from '../client.js';
import { colorsFor, printJson, println, type CliIo } from '../io.js';
import { loadConfig, type Config } from '../../core/config.js';
import { errorMessage } from '../../core/errors.js';
import { createDataDirCheck } from '../../core/os/data-dir-check.js';
import { ENGINE_FIX, expectedSha256, locateTemporalCli, onPath } from '../../workflows/engine/temporal-cli.js';
import { releaseArchiveUrl, releasePlatform, TEMPORAL_CLI_VERSION } from '../../workflows/engine/temporal-release.js';
import { packagePath } from '../../core/os/package-files.js';

/** `ready`: works now; `later`: prepared by the service at start (a download, a build); `missing`: needs the user. */
type CheckState = 'ready' | 'later' | 'missing';

interface Check {
  name: string;
  state: CheckState;
  detail: string;
  fix?: string;
}

const UI_HANDLER = packagePath('ui/build/handler.js');

/** Whether something listens at host:port (a TCP connect within `ms`). */
function reachable(host: string, port: number, ms = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(ms, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function hostPort(address: string, defaultPort: number): { host: string; port: number } {
  const url = new URL(address.includes('://') ? address : `tcp://${address}`);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || defaultPort };
}

async function dataDirCheck(config: Config): Promise<Check> {
  const result = await createDataDirCheck(config.dataDir).check();
  return result.ok
    ? { name: 'data dir', state: 'ready', detail: `${config.dataDir} is writable` }
    : {
        name: 'data dir',
        state: 'missing',
        detail: result.reason ?? 'not writable',
        fix: 'free space there or set AGENT_EVAL_DATA_DIR to a writable directory',
      };
}

async function storeCheck(name: string, url: string | undefined, defaultPort: number, embedded: string, setting: string): Promise<Check> {
  if (!url) return { name, state: 'ready', detail: embedded };
  const { host, port } = hostPort(url, defaultPort);
  return (await reachable(host, port))
    ? { name, state: 'ready', detail: `${host}:${port} answers` }
    : { name, state: 'missing', detail: `${host}:${port} does not answer`, fix: `start it, or correct ${setting} (unset: the embedded one)` };
}

/** Where the workflow engine would come from at the next start, without preparing anything. */
async function engineCheck(config: Config, env: CliIo['env']): Promise<Check> {
  const name = 'workflow engine';
  const { temporal } = config;
  if (temporal.address) {
    const { host, port } = hostPort(temporal.address, 7233);
    return (await reachable(host, port))
      ? { name, state: 'ready', detail: `TEMPORAL_ADDRESS ${temporal.address} answers` }
      : {
          name,
          state: 'missing',
          detail: `TEMPORAL_ADDRESS ${temporal.address} does not answer`,
          fix: 'start the Temporal server, or unset TEMPORAL_ADDRESS for the embedded dev server',
        };
  }
  const found = locateTemporalCli({ cliPath: temporal.cliPath, cacheDir: config.cacheDir, pathEnv: env.PATH });
  if (found.path) return { name, state: 'ready', detail: `embedded dev server, Temporal CLI from ${found.source}: ${found.path}` };
  if (temporal.cliPath) return { name, state: 'missing', detail: found.source, fix: ENGINE_FIX };
  const platform = releasePlatform();
  const sha = expectedSha256(temporal.sha256, platform);
  const ways: string[] = [];
  if (temporal.downloadUrl !== 'none' && platform && sha)
    ways.push(`downloaded from ${releaseArchiveUrl(temporal.downloadUrl, platform)} (SHA-256 checked, about a minute)`);
  if (onPath('go', env.PATH)) ways.push(`built with go install (${TEMPORAL_CLI_VERSION}, 6-11 minutes)`);
  if (ways.length > 0) {
    return {
      name,
      state: 'later',
      detail: `Temporal CLI ${found.source}; the service prepares it in the background at start: ${ways.join(', else ')}. Tracing works meanwhile.`,
    };
  }
  return { name, state: 'missing', detail: `Temporal CLI ${found.source}; no release download for this platform and no Go`, fix: ENGINE_FIX };
}

function dashboardCheck(): Check {
  return fs.existsSync(UI_HANDLER)
    ? { name: 'dashboard', state: 'ready', detail: `built (${path.dirname(UI_HANDLER)})` }
    : { name: 'dashboard', state: 'missing', detail: 'not built: the API is served without it', fix: 'npm run build (npm start builds it when stale)' };
}

/** The running service's own health, when one answers at `url`. */
async function serviceCheck(url: string): Promise<Check> {
  const name = 'running service';
  try {
    const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(3_000) });
    const body = (await res.json()) as { status?: string; services?: Record<string, string>; reasons?: Record<string, string> };
    const services = Object.entries(body.services ?? {})
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    const reasons = Object.entries(body.reasons ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ');
    const state: CheckState = body.status === 'healthy' ? 'ready' : 'missing';
    return {
      name,
      state,
      detail: `${url} is ${body.status ?? res.status} (${services})${reasons ? ` — ${reasons}` : ''}`,
      fix: state === 'ready' ? undefined : 'see the reasons above and the service log',
    };
  } catch (err) {
    return { name, state: 'later', detail: `none answers at ${url} (${errorMessage(err)}); start it with npm start or agent-eval serve` };
  }
}

async function doctor(io: CliIo, opts: { json?: boolean; url?: string }): Promise<void> {
  const checks: Check[] = [];
  checks.push({
    name: 'node',
    state: Number(process.versions.node.split('.')[0]) >= 20 ? 'ready' : 'missing',
    detail: `Node.js ${process.versions.node}`,
    fix: 'install Node.js 20 or newer',
  });
  let config: Config | undefined;
  try {
    config = loadConfig(io.env);
    checks.push({ name: 'configuration', state: 'ready', detail: `roles ${config.roles.join(',')}` });
  } catch (err) {
    checks.push({ name: 'configuration', state: 'missing', detail: errorMessage(err), fix: 'correct the settings named above (docs/configuration.md)' });
  }
  if (config) {
    checks.push(await dataDirCheck(config));
    checks.push(await storeCheck('analytical store', config.clickhouseUrl, 8123, 'embedded chDB (in this process)', 'CLICKHOUSE_URL'));
    checks.push(await storeCheck('metadata store', config.databaseUrl, 5432, 'embedded PostgreSQL (started by the service)', 'DATABASE_URL'));
    if (config.roles.includes('api') || config.roles.includes('worker')) checks.push(await engineCheck(config, io.env));
    if (config.roles.includes('api')) checks.push(dashboardCheck());
  }
  const url = (opts.url ?? io.env.AGENT_EVAL_URL ?? `http://127.0.0.1:${config?.port ?? 3000}`).replace(/\/+$/, '');
  checks.push(await serviceCheck(url));
  for (const check of checks) if (check.state === 'ready') delete check.fix;

  if (opts.json) printJson(io, { ok: checks.every((c) => c.state !== 'missing'), checks });
  else {
    const c = colorsFor(io.stdout, io.env);
    const mark: Record<CheckState, string> = { ready: c.green('ready  '), later: c.yellow('pending'), missing: c.red('missing') };
    for (const check of checks) {
      println(io.stdout, `${mark[check.state]}  ${c.bold(check.name)}: ${check.detail}`);
      if (check.fix) println(io.stdout, `         fix: ${check.fix}`);
    }
  }
  if (checks.some((check) => check.state === 'missing')) process.exitCode = 1;
}

export function registerDoctor(program: Command, io: CliIo): void {
  program
    .command('doctor')
    .description('what is ready, what is missing and how to fix it (stores, workflow engine, dashboard, a running service)')
    .option('--url <url>', 'the running service to ask (default AGENT_EVAL_URL, else http://127.0.0.1:$PORT)')
    .option('--json', 'print the checks as JSON')
    .action(action(io, (opts: { json?: boolean; url?: string }) => doctor(io, opts)));
}
