// Compiles the package into dist/ with tsconfig.build.json: the service (dist/main.js, what
// `npm start`, the container and bin/agent-eval.js run without a TypeScript loader) and the SDK
// (`agent-eval/sdk` and its browser-safe typed client `agent-eval/sdk/browser`, with
// declarations). The package's `prepare` runs it with --if-stale (npm ci, npm install in a
// checkout, npm pack, npm publish), as do `npm start`, `npm run build` and `npm run migrate`.
//
//   node scripts/build-dist.mjs             build
//   node scripts/build-dist.mjs --if-stale  build only when a source is newer than dist/.build-stamp
//                                           (scripts/dist-state.mjs)
//
// tsc writes into a temporary directory next to dist/, which then replaces dist/ by rename: a
// process running from dist/ never sees a half-written tree, and files of modules no longer
// compiled do not linger. Builds wait for one another (a lock directory), so two at once build
// once. Where TypeScript is not installed (`npm ci --omit=dev`) there is nothing to compile with:
// exit 0 with a message (a published package carries dist/).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DIST_DIR, PACKAGE_ROOT, STAMP_FILE, distState } from './dist-state.mjs';

const ifStale = process.argv.includes('--if-stale');
const LOCK_DIR = path.join(PACKAGE_ROOT, '.dist-build.lock');
const LOCK_WAIT_MS = 300_000;
const say = (line) => process.stderr.write(`build-dist: ${line}\n`);

if (ifStale) {
  const state = distState();
  if (state.current) process.exit(0);
  say(state.reason);
}

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  say('typescript is not installed (dev dependencies omitted); dist/ is not built');
  process.exit(0);
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};

/** Takes the build lock, waiting for a running build; a lock left by a dead process is taken over. */
function lock() {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.mkdirSync(LOCK_DIR);
      fs.writeFileSync(path.join(LOCK_DIR, 'pid'), String(process.pid));
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    let holder = NaN;
    try {
      holder = Number(fs.readFileSync(path.join(LOCK_DIR, 'pid'), 'utf8'));
    } catch {
      // Just made, its pid not written yet.
    }
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
      fs.rmSync(LOCK_DIR, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`build-dist: another build holds ${LOCK_DIR} (pid ${holder}) for over ${LOCK_WAIT_MS / 1000} s`);
    sleep(200);
  }
}

lock();
try {
  // A build that ran meanwhile may have made dist/ current.
  if (!ifStale || !distState().current) build();
} finally {
  fs.rmSync(LOCK_DIR, { recursive: true, force: true });
}

function build() {
  // Left by a build that was killed: only the lock holder builds, so they are nobody's.
  for (const name of fs.readdirSync(PACKAGE_ROOT))
    if (/^\.dist-(tmp|old)-/.test(name)) fs.rmSync(path.join(PACKAGE_ROOT, name), { recursive: true, force: true });

  const started = new Date();
  const tmp = path.join(PACKAGE_ROOT, `.dist-tmp-${process.pid}`);
  try {
    try {
      execFileSync(process.execPath, [tsc, '-p', path.join(PACKAGE_ROOT, 'tsconfig.build.json'), '--outDir', tmp], { stdio: 'inherit' });
    } catch {
      // tsc printed why.
      say('tsc failed; dist/ is unchanged');
      process.exitCode = 1;
      return;
    }
    // The stamp's time is when the build started: a source saved while tsc ran is newer, so the next --if-stale builds again.
    const stamp = path.join(tmp, path.relative(DIST_DIR, STAMP_FILE));
    fs.writeFileSync(stamp, `${started.toISOString()} typescript ${require('typescript/package.json').version}\n`);
    fs.utimesSync(stamp, started, started);
    const old = path.join(PACKAGE_ROOT, `.dist-old-${process.pid}`);
    let hadDist = true;
    try {
      fs.renameSync(DIST_DIR, old);
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
      hadDist = false;
    }
    fs.renameSync(tmp, DIST_DIR);
    if (hadDist) fs.rmSync(old, { recursive: true, force: true });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  say(`dist/ built in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s`);
}
