import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { staleReason } from '../../scripts/build-ui.js';
import { REPO_ROOT } from './processes.js';

/**
 * Real-browser tests of the dashboard: Debian's Chromium (scripts/chromium.sh) driven by
 * playwright-core. Never `npx playwright install`: it downloads a browser, which fails here.
 */

export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-output', 'screenshots');

/**
 * Where the dashboard remembers the chosen project between page loads (ui/src/lib/api.ts:
 * localStorage, the project's id). Nothing secret is kept there: the session is an HttpOnly
 * cookie, which `openPage(..., { apiKey })` gets the way the sign-in page does.
 */
export const PROJECT_STORAGE_KEY = 'agent-eval.project';

/** The Chromium binary: $CHROMIUM_PATH or Debian's, installed first when missing (scripts/chromium.sh fetch). */
export function chromiumPath(): string {
  const script = path.join(REPO_ROOT, 'scripts', 'chromium.sh');
  return execFileSync('bash', [script, 'fetch'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

/**
 * Flags for a headless Chromium on these machines: no sandbox (root), no GPU, /tmp instead of a
 * small /dev/shm; and no background traffic to Google's hosts, which this closed network refuses.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-features=Translate,OptimizationHints,MediaRouter',
];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
}

/**
 * Builds the dashboard when ui/build is missing or stale (scripts/build-ui.ts decides: a hash of
 * ui/ and the toolchain's versions). The global setup builds it once already; this covers a run
 * without it and a ui/ edited since. Several test files may call this at once: one builds under
 * a lock (flock), the others wait and then find the build up to date. Throws when it fails.
 */
export function ensureUiBuilt(): void {
  if (staleReason() === null) return;
  const lock = path.join(REPO_ROOT, 'test-output', '.ui-build.lock');
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  const script = 'const m = await import("./scripts/build-ui.ts"); await m.ensureUiBuild((l) => console.error(l));';
  try {
    execFileSync('flock', [lock, process.execPath, '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 600_000,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; status?: number | null };
    // Without the child's stack lines: the test runner would read them as this error's frames.
    const output = `${e.stdout ?? ''}\n${e.stderr ?? ''}`
      .split('\n')
      .filter((l) => l.trim() && !/^\s+at /.test(l))
      .join('\n');
    throw new Error(`building the dashboard (scripts/build-ui.ts) failed (exit ${e.status ?? '?'}):\n${output.slice(-4000)}`);
  }
  const reason = staleReason();
  if (reason !== null) throw new Error(`the dashboard build is still unusable after building: ${reason}`);
}

/** A page whose console errors and uncaught exceptions are recorded, for tests that assert none. */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console messages of type error and uncaught page errors, in order, with the URL they came from. */
  errors: string[];
  /** Failed or 4xx/5xx responses of requests the page made (not counted as errors by themselves). */
  failedRequests: string[];
  /** Saves a full-page screenshot as test-output/screenshots/<name>.png; returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface OpenPageOptions {
  /**
   * Sign in with this API key before any page loads, as the sign-in page does (POST
   * /api/auth/key from this context: the session cookie lands in its cookie jar, the key nowhere
   * in the browser): the page opens signed in.
   */
  apiKey?: string;
  /** The project the dashboard remembers (default: none, the UI picks the session's default project). */
  project?: string;
  /** Viewport; default 1280x800. */
  viewport?: { width: number; height: number };
}

/** A fresh context (own localStorage and cookies) and page on `baseUrl`; nothing is loaded yet. */
export async function openPage(browser: Browser, baseUrl: string, opts: OpenPageOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: opts.viewport ?? { width: 1280, height: 800 } });
  if (opts.apiKey !== undefined) await signInWithKey(context, baseUrl, opts.apiKey);
  if (opts.project !== undefined) {
    await context.addInitScript(
      ({ name, value }) => {
        // Only when not there yet: a project switch in the test must survive a reload.
        if (window.localStorage.getItem(name) === null) window.localStorage.setItem(name, value);
      },
      { name: PROJECT_STORAGE_KEY, value: opts.project },
    );
  }
  const page = await context.newPage();
  const errors: string[] = [];
  const failedRequests: string[] = [];
  page.on('console', (msg: ConsoleMessage) => {
    if (msg.type() !== 'error') return;
    const loc = msg.location();
    errors.push(`console.error at ${loc.url}:${loc.lineNumber}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`uncaught ${err.name}: ${err.message}\n${err.stack ?? ''}`));
  page.on('requestfailed', (req) => {
    // A navigation away aborts the requests still in flight: not a failure of the page.
    if (req.failure()?.errorText === 'net::ERR_ABORTED') return;
    failedRequests.push(`${req.method()} ${req.url()}: ${req.failure()?.errorText ?? 'failed'}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) failedRequests.push(`${res.request().method()} ${res.url()}: ${res.status()}`);
  });
  return {
    page,
    context,
    errors,
    failedRequests,
    async screenshot(name) {
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const file = path.join(SCREENSHOT_DIR, `${name.replace(/[^\w.-]+/g, '_')}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    close: () => context.close(),
  };
}

/**
 * Signs `context` in with an API key as the dashboard's sign-in page does: POST /api/auth/key,
 * whose session cookie the context's request API keeps in the context's cookie jar.
 */
export async function signInWithKey(context: BrowserContext, baseUrl: string, key: string): Promise<void> {
  const res = await context.request.post(`${baseUrl}/api/auth/key`, { data: { key }, headers: { origin: new URL(baseUrl).origin } });
  if (res.status() !== 200) throw new Error(`signing in with the API key: ${res.status()} ${await res.text()}`);
}

/** The recorded errors as one message, for `expect(describeErrors(p)).toBe('')`-style asserts. */
export function describeErrors(p: WatchedPage): string {
  return p.errors.join('\n---\n');
}
