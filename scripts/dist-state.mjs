// Whether dist/ (the compiled package, scripts/build-dist.mjs) is current: its stamp file at least
// as new as every source it is compiled from. Used by the build (`--if-stale`) and by
// bin/agent-eval.js (run dist/main.js when current, else the sources through tsx). `>=`, not `>`:
// `npm pack` gives every file of the tarball the same time (1985-10-26), the stamp included.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));
export const DIST_DIR = path.join(PACKAGE_ROOT, 'dist');
/** Written last by a build, its mtime the time the build started (before tsc read a source). */
export const STAMP_FILE = path.join(DIST_DIR, '.build-stamp');

/** The directories whose .ts files are compiled into dist/ (tsconfig.build.json follows their imports). */
const SOURCE_DIRS = ['core', 'api', 'collector', 'runtime', 'workflows', 'cli', 'sdk', 'scripts'];

/** The newest source (its path and mtime in ms) under `root`: .ts of SOURCE_DIRS, main.ts, tsconfig*.json, package.json. */
export function newestSource(root = PACKAGE_ROOT) {
  let newest = { file: '', mtimeMs: -Infinity };
  const consider = (file) => {
    let mtimeMs;
    try {
      mtimeMs = fs.statSync(file).mtimeMs;
    } catch {
      return;
    }
    if (mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
  };
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name === 'node_modules') continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.ts')) consider(full);
    }
  };
  for (const dir of SOURCE_DIRS) walk(path.join(root, dir));
  consider(path.join(root, 'main.ts'));
  consider(path.join(root, 'package.json'));
  for (const name of fs.readdirSync(root)) if (/^tsconfig.*\.json$/.test(name)) consider(path.join(root, name));
  return newest;
}

/** `{ current: true }`, or `{ current: false, reason }` saying why dist/ under `root` needs a build. */
export function distState(root = PACKAGE_ROOT) {
  const stamp = path.join(root, 'dist', '.build-stamp');
  let stampMs;
  try {
    stampMs = fs.statSync(stamp).mtimeMs;
  } catch {
    return { current: false, reason: 'dist/ has never been built (no dist/.build-stamp)' };
  }
  if (!fs.existsSync(path.join(root, 'dist', 'main.js'))) return { current: false, reason: 'dist/main.js is missing' };
  const newest = newestSource(root);
  if (newest.mtimeMs > stampMs) return { current: false, reason: `${path.relative(root, newest.file)} is newer than the build` };
  return { current: true };
}
