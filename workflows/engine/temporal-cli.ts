import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import type { Logger } from '../../core/logger.js';
import { errorMessage } from '../../core/errors.js';
import { cachedCliPath, downloadTemporalCli, releaseArchiveUrl, releasePlatform, TEMPORAL_CLI_SHA256, TEMPORAL_CLI_VERSION } from './temporal-release.js';
import { packagePath } from '../../core/os/package-files.js';

const SCRIPT = packagePath('scripts/temporal.sh');

/** How often a long step (a download, a Go build) logs that it is still going. */
const PROGRESS_EVERY_MS = 30_000;

/**
 * The embedded engine cannot be prepared here: `fix` says exactly how to provide it. Tracing
 * works regardless; run routes answer 503 with it.
 */
export class EngineSetupError extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
    this.name = 'EngineSetupError';
  }
}

export const ENGINE_FIX =
  `set TEMPORAL_CLI_PATH to a temporal ${TEMPORAL_CLI_VERSION} binary (github.com/temporalio/cli/releases), ` +
  'or TEMPORAL_ADDRESS to a running Temporal server, or install Go (go.dev/dl) so the service builds the CLI itself; then restart';

export interface CliOptions {
  cliPath?: string;
  cacheDir: string;
  /** TEMPORAL_CLI_DOWNLOAD_URL; `none` never downloads. */
  downloadUrl: string;
  /** TEMPORAL_CLI_SHA256: the archive's checksum instead of the pinned one. */
  sha256?: string;
  logger: Logger;
  /** The step under way, for health and the run routes' 503 ("downloading the Temporal CLI"...). */
  onStep?(step: string): void;
  /** PATH to search for `temporal` and `go` (default this process's). */
  pathEnv?: string;
}

export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first executable `name` on `pathEnv`. */
export function onPath(name: string, pathEnv = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathEnv.split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

/** Where the CLI comes from without preparing anything, or why it would have to be prepared (`agent-eval doctor`). */
export function locateTemporalCli(opts: Pick<CliOptions, 'cliPath' | 'cacheDir' | 'pathEnv'>): { path?: string; source: string } {
  if (opts.cliPath)
    return isExecutable(opts.cliPath)
      ? { path: opts.cliPath, source: 'TEMPORAL_CLI_PATH' }
      : { source: `TEMPORAL_CLI_PATH=${opts.cliPath} is not an executable` };
  const found = onPath('temporal', opts.pathEnv);
  if (found) return { path: found, source: 'PATH' };
  const cached = cachedCliPath(opts.cacheDir);
  if (isExecutable(cached)) return { path: cached, source: 'cache' };
  return { source: `not installed (cache: ${path.dirname(cached)})` };
}

/** The archive checksum to expect on this machine, or undefined when none is known (no download then). */
export function expectedSha256(sha256: string | undefined, platform = releasePlatform()): string | undefined {
  return sha256 ?? (platform ? TEMPORAL_CLI_SHA256[platform] : undefined);
}

function elapsed(since: number): string {
  const s = Math.round((Date.now() - since) / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** `scripts/temporal.sh fetch`: `go install` of the pinned version into the cache, logging progress while it runs. */
async function buildWithGo(opts: CliOptions): Promise<string> {
  const started = Date.now();
  const step = () => `building the Temporal CLI ${TEMPORAL_CLI_VERSION} with go install (step 2 of 2, ${elapsed(started)} elapsed, usually 6-11 minutes)`;
  opts.logger.info(step());
  opts.onStep?.(step());
  const timer = setInterval(() => {
    opts.logger.info(step());
    opts.onStep?.(step());
  }, PROGRESS_EVERY_MS);
  timer.unref();
  try {
    const env = { ...process.env, AGENT_EVAL_CACHE_DIR: opts.cacheDir, ...(opts.pathEnv ? { PATH: opts.pathEnv } : {}) };
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('bash', [SCRIPT, 'fetch', TEMPORAL_CLI_VERSION], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (err = (err + c.toString('utf8')).slice(-4000)));
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`go install failed (exit ${code}): ${err.trim()}`))));
    });
    opts.logger.info({ elapsed: elapsed(started) }, 'Temporal CLI built');
    return output;
  } finally {
    clearInterval(timer);
  }
}

/**
 * The `temporal` binary for the embedded engine, prepared when missing: TEMPORAL_CLI_PATH, else
 * one on PATH, else the cache's; else the pinned release downloaded from TEMPORAL_CLI_DOWNLOAD_URL
 * and checked against its SHA-256; else built with Go. With none of these it throws an
 * EngineSetupError that says how to provide one.
 */
export async function prepareTemporalCli(opts: CliOptions): Promise<string> {
  const found = locateTemporalCli(opts);
  if (opts.cliPath && !found.path) throw new EngineSetupError(found.source, ENGINE_FIX);
  if (found.path) return found.path;

  const failures: string[] = [];
  const platform = releasePlatform();
  const sha256 = expectedSha256(opts.sha256, platform);
  if (opts.downloadUrl === 'none') failures.push('download disabled (TEMPORAL_CLI_DOWNLOAD_URL=none)');
  else if (!platform) failures.push(`no Temporal CLI release for ${process.platform}/${process.arch}`);
  else if (!sha256) failures.push(`no pinned SHA-256 for ${platform} (set TEMPORAL_CLI_SHA256 to download)`);
  else {
    const started = Date.now();
    const url = releaseArchiveUrl(opts.downloadUrl, platform);
    const step = (detail = '') => `downloading the Temporal CLI ${TEMPORAL_CLI_VERSION} (step 1 of 2${detail}, ${elapsed(started)} elapsed)`;
    opts.logger.info({ url }, step());
    opts.onStep?.(step());
    try {
      const binary = await downloadTemporalCli({
        baseUrl: opts.downloadUrl,
        cacheDir: opts.cacheDir,
        sha256,
        platform,
        onProgress: (received, total) => {
          const mb = (n: number) => (n / 1048576).toFixed(1);
          const line = step(`: ${mb(received)}${total ? ` of ${mb(total)}` : ''} MB`);
          opts.logger.info(line);
          opts.onStep?.(line);
        },
      });
      opts.logger.info({ path: binary, elapsed: elapsed(started) }, 'Temporal CLI downloaded and its SHA-256 verified');
      return binary;
    } catch (err) {
      failures.push(`download from ${url} failed: ${errorMessage(err)}`);
      opts.logger.warn({ url, err: errorMessage(err) }, 'Temporal CLI download failed; building it with Go instead where Go is installed');
    }
  }
  if (!onPath('go', opts.pathEnv)) {
    throw new EngineSetupError(`no Temporal CLI: ${[...failures, 'Go is not installed'].join('; ')}`, ENGINE_FIX);
  }
  try {
    return await buildWithGo(opts);
  } catch (err) {
    throw new EngineSetupError(`no Temporal CLI: ${[...failures, errorMessage(err)].join('; ')}`, ENGINE_FIX);
  }
}
