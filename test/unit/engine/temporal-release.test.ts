import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedCliPath, downloadTemporalCli, releaseArchiveUrl, releasePlatform, TEMPORAL_CLI_SHA256 } from '../../../workflows/engine/temporal-release.js';

// The pinned Temporal CLI release, downloaded and checked (workflows/engine/temporal-release.ts),
// against a local server serving an archive built here (a small script named `temporal`).

let work: string;
let server: http.Server;
let base: string;
let sha256: string;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-release-'));
  const src = path.join(work, 'src');
  fs.mkdirSync(src);
  fs.writeFileSync(path.join(src, 'temporal'), '#!/bin/sh\necho "temporal version 1.5.1"\n', { mode: 0o755 });
  fs.writeFileSync(path.join(src, 'LICENSE'), 'MIT\n');
  const dir = path.join(work, 'releases', 'v1.5.1');
  fs.mkdirSync(dir, { recursive: true });
  const archive = path.join(dir, 'temporal_cli_1.5.1_linux_amd64.tar.gz');
  execFileSync('tar', ['-czf', archive, '-C', src, 'temporal', 'LICENSE']);
  sha256 = crypto.createHash('sha256').update(fs.readFileSync(archive)).digest('hex');
  server = http.createServer((req, res) => {
    const file = path.join(work, 'releases', decodeURIComponent(req.url ?? '/'));
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': String(fs.statSync(file).size) });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(work, { recursive: true, force: true });
});

const leftovers = (cacheDir: string) => fs.readdirSync(cacheDir).filter((name) => name.startsWith('.temporal-download-'));

describe('the pinned Temporal CLI release', () => {
  it('names the archives as Temporal publishes them, and pins a checksum for the platforms it downloads on', () => {
    expect(releasePlatform('linux', 'x64')).toBe('linux_amd64');
    expect(releasePlatform('darwin', 'arm64')).toBe('darwin_arm64');
    expect(releasePlatform('win32', 'x64')).toBeUndefined();
    expect(releaseArchiveUrl('https://github.com/temporalio/cli/releases/download', 'linux_amd64')).toBe(
      'https://github.com/temporalio/cli/releases/download/v1.5.1/temporal_cli_1.5.1_linux_amd64.tar.gz',
    );
    for (const platform of ['linux_amd64', 'linux_arm64', 'darwin_amd64', 'darwin_arm64']) expect(TEMPORAL_CLI_SHA256[platform]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('installs the binary into the cache when the SHA-256 matches', async () => {
    const cacheDir = path.join(work, 'cache-ok');
    const progress: number[] = [];
    const binary = await downloadTemporalCli({ baseUrl: base, cacheDir, sha256, platform: 'linux_amd64', onProgress: (n) => progress.push(n) });
    expect(binary).toBe(cachedCliPath(cacheDir));
    expect(execFileSync(binary, { encoding: 'utf8' })).toBe('temporal version 1.5.1\n');
    expect(leftovers(cacheDir)).toEqual([]);
  });

  it('discards an archive whose SHA-256 differs, installing nothing', async () => {
    const cacheDir = path.join(work, 'cache-bad');
    const wrong = 'f'.repeat(64);
    await expect(downloadTemporalCli({ baseUrl: base, cacheDir, sha256: wrong, platform: 'linux_amd64', onProgress: () => undefined })).rejects.toThrow(
      `SHA-256 ${sha256} is not the expected ${wrong}; the archive was discarded`,
    );
    expect(fs.existsSync(cachedCliPath(cacheDir))).toBe(false);
    expect(leftovers(cacheDir)).toEqual([]);
  });

  it('says what the server answered when there is no such release', async () => {
    const cacheDir = path.join(work, 'cache-missing');
    await expect(downloadTemporalCli({ baseUrl: base, cacheDir, sha256, platform: 'linux_arm64', onProgress: () => undefined })).rejects.toThrow(
      /temporal_cli_1\.5\.1_linux_arm64\.tar\.gz answered 404/,
    );
    expect(fs.existsSync(cachedCliPath(cacheDir))).toBe(false);
  });
});
