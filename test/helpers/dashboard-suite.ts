import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { ensureUiBuilt, launchBrowser, openPage, type OpenPageOptions, type WatchedPage } from './browser.js';
import { startTestService, type TestService } from './server.js';
import { startedLater } from './test-service-hooks.js';

/**
 * The lifecycle every browser test file of the dashboard shares, registered as vitest hooks:
 * `beforeAll` builds the UI when stale (ensureUiBuilt), starts the service, runs `seed`, then
 * launches Chromium; `afterEach` closes the pages the test opened; `afterAll` closes the browser,
 * stops the service and then runs `after`.
 */
export interface DashboardSuiteOptions {
  /** The service's environment (startTestService's). */
  env?: Record<string, string>;
  /** Starts the service instead of startTestService(env): for tests that start something before it. */
  start?: () => Promise<TestService>;
  /** The data the tests read, written once the service is up and before the browser starts. */
  seed?: (svc: TestService) => Promise<void>;
  /** Run after the service stopped: for what `start` started besides it. */
  after?: () => Promise<void>;
  /** The `beforeAll` timeout (vitest's default unless given). */
  timeout?: number;
}

export interface OpenOptions extends OpenPageOptions {
  /** false: no key and no project, the page opens signed out (default: the default project's admin key). */
  signedIn?: boolean;
}

export interface DashboardSuite {
  /** The service, from the moment `beforeAll` has started it. */
  svc: TestService;
  /** Chromium, from the moment `beforeAll` has launched it. */
  browser: Browser;
  /**
   * A fresh page, signed in with the default project's admin key on the default project unless
   * `opts` say otherwise; closed after the test.
   */
  open: (opts?: OpenOptions) => Promise<WatchedPage>;
  /** `path`'s JSON answer, asserting its status (the answer is the failure's message). */
  call: <T>(path: string, init?: { method?: string; json?: unknown }, status?: number) => Promise<T>;
}

export function dashboardSuite(opts: DashboardSuiteOptions = {}): DashboardSuite {
  let svc: TestService | undefined;
  let browser: Browser | undefined;
  const pages: WatchedPage[] = [];
  const service = startedLater(() => svc, 'the test service');

  beforeAll(async () => {
    ensureUiBuilt();
    svc = await (opts.start ?? (() => startTestService(opts.env)))();
    if (!svc.apiKey) throw new Error('the test service wrote no credentials.json');
    await opts.seed?.(svc);
    browser = await launchBrowser();
  }, opts.timeout);

  afterEach(async () => {
    await Promise.all(pages.splice(0).map((p) => p.close()));
  });

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await opts.after?.();
  });

  return {
    svc: service,
    browser: startedLater(() => browser, 'the browser'),
    async open({ signedIn = true, ...page }: OpenOptions = {}) {
      const signIn = signedIn ? { apiKey: page.apiKey ?? service.apiKey, project: page.project ?? service.defaultProjectId } : {};
      const p = await openPage(browser!, service.apiUrl!, { ...page, ...signIn });
      pages.push(p);
      return p;
    },
    async call<T>(path: string, init: { method?: string; json?: unknown } = {}, status = 200): Promise<T> {
      const res = await service.api(path, init);
      const text = await res.text();
      expect(res.status, `${init.method ?? 'GET'} ${path}: ${text}`).toBe(status);
      return JSON.parse(text) as T;
    },
  };
}
