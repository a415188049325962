import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { ensureUiBuild } from '../scripts/build-ui.js';
import { useRunTmpDir } from './helpers/data-dir.js';
import { ensureTemporalCli } from './helpers/tools.js';

/**
 * Builds the tools the tests run for real, once, before any test file starts: the Temporal CLI
 * takes 6-11 minutes to build on a fresh machine, longer than any hook may wait, and every
 * service a test starts runs its dev server. Cached after the first build.
 *
 * For the browser tests (test/browser): installs Chromium when missing (Debian's package with
 * apt-get, scripts/chromium.sh fetch; about a minute, once) and builds the dashboard when its
 * build is missing or stale (scripts/build-ui.ts). Where either fails the other tests still
 * run; the browser tests then fail with the reason.
 *
 * For the tests of the 'service' project: builds dist/ when a source is newer (scripts/build-dist.mjs
 * --if-stale; at once after `npm ci`, whose `prepare` built it). The service processes tests start
 * run it compiled (spawnServiceProcess), and a build of tens of seconds belongs here, before any
 * test's timeout runs, not in the first test that starts a process.
 *
 * Gives the run its own temporary directory (TMPDIR, inherited by every test worker and every
 * process they start) and removes it when the run ends: each test file's data dirs (chDB,
 * PostgreSQL, Kafka logs; ~85 MB a service) are made with os.tmpdir(), so nothing a test forgets
 * to remove outlives the run.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  ensureTemporalCli();
  if (project.name === 'service') {
    try {
      execFileSync(process.execPath, [BUILD_DIST, '--if-stale'], { stdio: ['ignore', 'inherit', 'inherit'] });
    } catch {
      console.warn('global-setup: dist/ did not build (see above); the tests that start service processes will fail');
    }
  }

  const chromium = fileURLToPath(new URL('../scripts/chromium.sh', import.meta.url));
  try {
    execFileSync('bash', [chromium, 'fetch'], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch {
    console.warn('global-setup: Chromium is not available (see above); the browser tests in test/browser will fail');
  }
  try {
    await ensureUiBuild((line) => console.warn(`global-setup: ${line}`));
  } catch (err) {
    console.warn(
      `global-setup: the dashboard did not build; the browser tests in test/browser will fail:\n${err instanceof Error ? err.message : String(err)}`,
    );
  }
  // Vitest runs this once per project (vitest.config.ts has two) in the same process: the run gets
  // one directory, made by the first and removed by the last to finish. A directory per project
  // would nest (TMPDIR inside TMPDIR), and Chromium refuses a profile whose socket path is too long.
  const run = ((globalThis as { [RUN_TMP]?: { dir: string; users: number } })[RUN_TMP] ??= { dir: useRunTmpDir('agent-eval-tests-'), users: 0 });
  run.users += 1;
  return () => {
    run.users -= 1;
    if (run.users === 0) fs.rmSync(run.dir, { recursive: true, force: true });
  };
}

const BUILD_DIST = fileURLToPath(new URL('../scripts/build-dist.mjs', import.meta.url));

/** Where the run's temporary directory is kept between the project's setups (one process). */
const RUN_TMP = Symbol.for('agent-eval.test-run-tmp');
