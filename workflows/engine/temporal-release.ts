import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * The Temporal CLI release the embedded engine runs (scripts/temporal.sh builds the same version
 * with `go install` where no release can be downloaded).
 */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

/**
 * SHA-256 of the release archives of TEMPORAL_CLI_VERSION, by `<os>_<arch>` as Temporal names
 * them (github.com/temporalio/cli/releases, goreleaser's `temporal_cli_<version>_<os>_<arch>.tar.gz`).
 * A platform without a pinned checksum is not downloaded (unless TEMPORAL_CLI_SHA256 names one):
 * the CLI is built with Go there. The four values agree with an independent public pin list of the
 * same release (checked 2026-11-28); no archive could be downloaded from the machines this was
 * built on (no internet), so the download path is tested against archives the tests build.
 */
export const TEMPORAL_CLI_SHA256: Readonly<Record<string, string>> = {
  linux_amd64: 'ddc95e08b0b076efd4ea9733a3f488eb7d2be875f8834e616cd2a37358b4852d',
  darwin_amd64: 'bbb73e2a31135abe50a1f1cdb35030c42961df618e8ce9c60ae89f201540c5d9',
  darwin_arm64: 'cca01b7ea35ad56e2a328d9ae596bf716bd22313ef63c7a761c88354457c2415',
  linux_arm64: 'bd1b0db9f18b051026de8bf6cc1505f2510f14bbb7a8b9a4a91fff46c77454f5',
};

/** `<os>_<arch>` in Temporal's release names for this machine, or undefined where none is published. */
export function releasePlatform(platform: string = process.platform, arch: string = process.arch): string | undefined {
  const os = platform === 'linux' || platform === 'darwin' ? platform : undefined;
  const cpu = arch === 'x64' ? 'amd64' : arch === 'arm64' ? 'arm64' : undefined;
  return os && cpu ? `${os}_${cpu}` : undefined;
}

export function releaseArchiveUrl(baseUrl: string, platform: string): string {
  const version = TEMPORAL_CLI_VERSION;
  return `${baseUrl.replace(/\/+$/, '')}/${version}/temporal_cli_${version.slice(1)}_${platform}.tar.gz`;
}

/** Where the cache keeps the CLI of TEMPORAL_CLI_VERSION: the same place scripts/temporal.sh builds it. */
export function cachedCliPath(cacheDir: string): string {
  return path.join(cacheDir, `temporal-${TEMPORAL_CLI_VERSION}`, 'bin', 'temporal');
}

export interface DownloadOptions {
  baseUrl: string;
  cacheDir: string;
  /** Expected SHA-256 of the archive: TEMPORAL_CLI_SHA256, else the pinned one of this platform. */
  sha256: string;
  platform: string;
  /** Called every few seconds while the archive arrives. */
  onProgress(received: number, total: number | undefined): void;
  signal?: AbortSignal;
}

/**
 * Downloads the release archive, checks its SHA-256, and installs its `temporal` binary at
 * cachedCliPath (atomic rename of a complete bin dir, as scripts/temporal.sh does, so a
 * concurrent build or download never leaves half a binary). Throws with the reason otherwise.
 */
export async function downloadTemporalCli(opts: DownloadOptions): Promise<string> {
  const url = releaseArchiveUrl(opts.baseUrl, opts.platform);
  const target = cachedCliPath(opts.cacheDir);
  fs.mkdirSync(opts.cacheDir, { recursive: true });
  const work = fs.mkdtempSync(path.join(opts.cacheDir, '.temporal-download-'));
  try {
    const archive = path.join(work, 'temporal.tar.gz');
    const response = await fetch(url, { signal: opts.signal, redirect: 'follow' });
    if (!response.ok || !response.body) throw new Error(`GET ${url} answered ${response.status}`);
    const total = Number(response.headers.get('content-length')) || undefined;
    const hash = crypto.createHash('sha256');
    const out = fs.createWriteStream(archive);
    let received = 0;
    let reported = Date.now();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        hash.update(chunk);
        received += chunk.length;
        if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
        if (Date.now() - reported >= 5_000) {
          reported = Date.now();
          opts.onProgress(received, total);
        }
      }
    } finally {
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    }
    const actual = hash.digest('hex');
    if (actual !== opts.sha256) throw new Error(`${url}: SHA-256 ${actual} is not the expected ${opts.sha256}; the archive was discarded`);
    const bin = path.join(work, 'bin');
    fs.mkdirSync(bin);
    await promisify(execFile)('tar', ['-xzf', archive, '-C', bin, 'temporal'], { timeout: 5 * 60_000 });
    fs.chmodSync(path.join(bin, 'temporal'), 0o755);
    fs.mkdirSync(path.dirname(path.dirname(target)), { recursive: true });
    try {
      fs.renameSync(bin, path.dirname(target));
    } catch (err) {
      // Another process installed it in between: theirs is as good as ours.
      if (!fs.existsSync(target)) throw err;
    }
    return target;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
