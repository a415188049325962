import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { apiFetch, makeDataDir } from '../helpers/server.js';
import { locateTemporalCli } from '../../workflows/engine/temporal-cli.js';
import { cachedCliPath } from '../../workflows/engine/temporal-release.js';

/**
 * The release download fails (the mirror answers 404) and Go is installed: the CLI is built with
 * `go install` through scripts/temporal.sh, with progress in the log, and the engine becomes
 * ready. The `go` here is a stand-in on PATH that "builds" by linking this machine's cached
 * temporal binary into GOBIN, so the test never pays a real 10-minute build; everything around it
 * (the script, its lock and atomic rename, the service's fallback and progress) is the real one.
 */

const HOME_CACHE = process.env.AGENT_EVAL_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'agent-eval');

let service: ServiceProcess | undefined;
let mirror: http.Server | undefined;
let work: string;
const goCalls: string[] = [];

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-go-fallback-'));
  const binary = locateTemporalCli({ cacheDir: HOME_CACHE }).path;
  if (!binary) throw new Error(`no temporal binary in ${HOME_CACHE}: run scripts/temporal.sh fetch once`);
  const fakeBin = path.join(work, 'fake-go-bin');
  fs.mkdirSync(fakeBin);
  const log = path.join(work, 'go-calls.log');
  fs.writeFileSync(
    path.join(fakeBin, 'go'),
    `#!/usr/bin/env bash\necho "$*" >> "${log}"\n[ "$1" = install ] || exit 2\nsleep 1\nmkdir -p "$GOBIN"\nln -s "${binary}" "$GOBIN/temporal"\n`,
    { mode: 0o755 },
  );
  mirror = http.createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => mirror!.listen(0, '127.0.0.1', () => resolve()));
  fs.mkdirSync(path.join(work, 'cache'));
  const pathWithoutGo = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => !fs.existsSync(path.join(dir, 'temporal')) && !fs.existsSync(path.join(dir, 'go')));
  service = await spawnServiceProcess(
    makeDataDir('agent-eval-go-fallback-data-'),
    {
      AGENT_EVAL_CACHE_DIR: path.join(work, 'cache'),
      TEMPORAL_CLI_DOWNLOAD_URL: `http://127.0.0.1:${(mirror.address() as AddressInfo).port}`,
      PATH: [fakeBin, ...pathWithoutGo].join(path.delimiter),
    },
    90_000,
    { waitForEngine: false },
  );
  goCalls.push(log);
});

afterAll(async () => {
  await stopProcess(service);
  await new Promise((resolve) => mirror?.close(resolve));
  fs.rmSync(work, { recursive: true, force: true });
});

describe('no release download, Go installed', () => {
  it('builds the CLI with go install in the background, logging the step, then the engine is ready', async () => {
    const api = (p: string) => apiFetch(service!.apiUrl!, service!.projectId, p, {});
    await pollUntil(
      'the engine to be ready',
      async () => {
        const body = (await (await api('/api/health')).json()) as { services: Record<string, string> };
        return body.services.workflow_engine === 'ok' ? body : undefined;
      },
      { timeoutMs: 90_000, describe: () => service!.output().slice(-3000) },
    );
    const out = service!.output();
    expect(out).toContain('Temporal CLI download failed; building it with Go instead');
    expect(out).toMatch(/building the Temporal CLI v1\.5\.1 with go install \(step 2 of 2, \d+s elapsed/);
    expect(out).toContain('Temporal CLI built');
    expect(out).toContain('workflow engine ready');
    expect(fs.readFileSync(goCalls[0], 'utf8')).toMatch(/^install github\.com\/temporalio\/cli\/cmd\/temporal@v1\.5\.1$/m);
    // Where scripts/temporal.sh puts it: the next start finds it there and builds nothing.
    expect(fs.existsSync(cachedCliPath(path.join(work, 'cache')))).toBe(true);
  });
});
