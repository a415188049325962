import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packagePath } from '../core/os/package-files.js';

/** The dashboard's sources (ui/) and its build (ui/build, adapter-node output, gitignored). */
export const UI_DIR = packagePath('ui/');
export const UI_BUILD_DIR = path.join(UI_DIR, 'build');
/** Written next to the build: the hash of the sources it was built from. */
const HASH_FILE = path.join(UI_BUILD_DIR, '.source-hash');
/** Not sources: generated output and local dependencies. */
const SKIP = new Set(['build', '.svelte-kit', 'node_modules']);
/** The toolchain is part of the input: a new Svelte or Kit makes a different build. */
const TOOLCHAIN = ['svelte', '@sveltejs/kit', '@sveltejs/adapter-node', '@sveltejs/vite-plugin-svelte', 'vite'];

function listFiles(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (dir === base && SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full, base));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** A hash of every file under ui/ (names and contents) and the toolchain's versions. */
export function uiSourceHash(): string {
  const hash = createHash('sha256');
  for (const file of listFiles(UI_DIR)) {
    hash.update(path.relative(UI_DIR, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  const require = createRequire(import.meta.url);
  for (const name of TOOLCHAIN) {
    try {
      const pkg = JSON.parse(fs.readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string };
      hash.update(`${name}@${pkg.version}\0`);
    } catch {
      hash.update(`${name}@missing\0`);
    }
  }
  return hash.digest('hex');
}

/** Why the build must be (re)made, or null when ui/build matches the sources. */
export function staleReason(): string | null {
  if (!fs.existsSync(path.join(UI_BUILD_DIR, 'handler.js'))) return 'no build';
  const stored = fs.existsSync(HASH_FILE) ? fs.readFileSync(HASH_FILE, 'utf8').trim() : '';
  return stored === uiSourceHash() ? null : 'sources changed since the last build';
}

/** Held while one process builds: two builds at once (a test run and `npm start`) would write the same files. */
const LOCK_DIR = path.join(os.tmpdir(), `agent-eval-ui-build-${createHash('sha256').update(UI_DIR).digest('hex').slice(0, 12)}.lock`);
/** A lock older than this is left over from a build that died. */
const STALE_LOCK_MS = 5 * 60_000;

async function withBuildLock<T>(fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      fs.mkdirSync(LOCK_DIR);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - (fs.statSync(LOCK_DIR, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) fs.rmSync(LOCK_DIR, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(LOCK_DIR, { recursive: true, force: true });
  }
}

/** Runs `vite build` in ui/ (SvelteKit reads svelte.config.js from the working directory) and records the source hash. */
export function buildUi(log: (line: string) => void = () => {}): Promise<void> {
  return withBuildLock(() => viteBuild(log));
}

async function viteBuild(log: (line: string) => void): Promise<void> {
  const hash = uiSourceHash();
  // vite's package exports do not list its bin: find it next to its package.json.
  const vite = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  const started = Date.now();
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    // NODE_ENV=production always: under vitest (NODE_ENV=test) Vite would otherwise bundle Svelte's development build.
    const env = { ...process.env, NODE_ENV: 'production' };
    const child = spawn(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: UI_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => output.push(d.toString()));
    child.stderr.on('data', (d: Buffer) => output.push(d.toString()));
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`vite build failed (exit ${code}):\n${output.join('')}`);
  fs.writeFileSync(HASH_FILE, `${hash}\n`);
  log(`dashboard built into ${path.relative(process.cwd(), UI_BUILD_DIR) || UI_BUILD_DIR} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Builds the dashboard when it is missing or stale; returns whether it built. */
export async function ensureUiBuild(log: (line: string) => void = () => {}): Promise<boolean> {
  if (!staleReason()) return false;
  return withBuildLock(async () => {
    // Another process may have built it while this one waited for the lock.
    const reason = staleReason();
    if (!reason) return false;
    log(`building the dashboard (${reason})...`);
    await viteBuild(log);
    return true;
  });
}

/**
 * `node dist/scripts/build-ui.js` (npm run build, compiled) or `node --import tsx scripts/build-ui.ts`: build the dashboard.
 * `--if-stale`: only when missing or stale (npm start); a failed build there is reported and the
 * service starts anyway (the API works; dashboard paths say to run `npm run build`).
 */
async function main(): Promise<void> {
  const ifStale = process.argv.includes('--if-stale');
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    if (ifStale) await ensureUiBuild(log);
    else await buildUi(log);
  } catch (err) {
    log(err instanceof Error ? err.message : String(err));
    if (!ifStale) process.exit(1);
    log('the dashboard could not be built; starting the API without it');
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
