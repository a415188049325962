import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { UI_BUILD_DIR } from '../scripts/build-ui.js';
import { ensureUiBuilt, launchBrowser, openPage } from '../test/helpers/browser.js';
import { nestedAgentTrace, SEL } from '../test/helpers/dashboard.js';
import { readApiKey } from '../test/helpers/credentials.js';
import { connectClickHouse } from '../core/store/clickhouse/client.js';
import { makeDataDir } from '../test/helpers/data-dir.js';
import { cpuSeconds, getJson, getTimed, machineBusySeconds, post, round, sleep, summarize } from './lib.js';
import { seedBySql } from './seed-by-sql.js';
import { startBenchService, type BenchService } from './service.js';

/**
 * The dashboard's figures (issues 10 and 32), in Debian's Chromium driven by playwright-core: with
 * `traces` (100,000) traces stored, written by ClickHouse itself (seed-by-sql.ts: agent-shaped
 * spans and their summary rows, seconds instead of minutes through ingest), the time until each
 * page's data is on screen: the traces list newest first, sorted by cost, filtered to production
 * traffic; the sessions list; the analytics page over a week and over 24 hours (until its first
 * screen has its data: the cost total and the three panels above it); the waterfall of a
 * 3,000-span and a 10,000-span trace (ingested through the API). Each page is loaded `loads`
 * times: cold (a fresh browser context: no cache, no storage but the API key) and warm (a reload
 * in the same context), each once the service is idle; medians of those. Two clocks:
 * `page_ms` is the page's own (navigation start to the rows, read in the page on the animation
 * frame that first has them); `wall_ms` is from page.goto to playwright seeing them. Also: the API
 * calls those pages start with, timed alone (the list's first page in every order and source; a
 * trace's first page of 2,000 spans, as the UI asks), and the built UI's JavaScript (every .js
 * under the build's client dir, uncompressed bytes). With each cold load, the CPU the service used
 * and the CPU the rest of the machine used (Chromium, nearly all of it). Targets: under 1 s each.
 * Run: `npm run bench -- ui [--quick] [--runs N] [--traces N]`.
 */
export interface UiBenchOptions {
  traces: number;
  /** Unused since the store is seeded by SQL (kept for the runner's `--concurrency`). */
  concurrency: number;
  loads: number;
  /** Rows that must be in the DOM for a list or waterfall to count as shown. */
  minRows: number;
}

/** The seeded traces: 5 spans (a root, generations, a tool), texts of 200 bytes; spread over a week. */
const SEED = { spansPerTrace: 5, textBytes: 200, spreadMs: 7 * 86_400_000 };

/** Every .js file under the build's client dir (what a browser may download), in bytes. */
export function clientJsBytes(dir = path.join(UI_BUILD_DIR, 'client')): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile() && e.name.endsWith('.js')) {
        files++;
        bytes += fs.statSync(full).size;
      }
    }
  };
  walk(dir);
  return { files, bytes };
}

/**
 * Where a cold load's time went, read in the page (ms from navigation start): the document, the
 * last script, and each API call's start and end, in order.
 */
const COLD_BREAKDOWN = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  const scripts = res.filter((e) => e.name.endsWith('.js'));
  return {
    document_ms: Math.round(nav ? nav.responseEnd : 0),
    scripts: scripts.length,
    last_script_ms: Math.round(Math.max(0, ...scripts.map((e) => e.responseEnd))),
    api: res.filter((e) => e.name.includes('/api/')).map((e) => {
      const u = new URL(e.name);
      return u.pathname + ' ' + Math.round(e.startTime) + '-' + Math.round(e.responseEnd);
    }),
  };
})()`;

/** One element per panel of the analytics page's first screen once it has its data (or says it has none). */
const ANALYTICS_FIRST_SCREEN = [
  'cost-total',
  'percentiles-count',
  'percentiles-empty',
  'score-trends-table',
  'score-trends-empty',
  'correlation-sentence',
  'correlation-empty',
]
  .map((id) => `[data-testid="${id}"]`)
  .join(', ');

/** Resolves once the service has used under 10 ms of CPU in 200 ms (or after 10 s whatever it does). */
async function serviceIdle(pid: number): Promise<void> {
  const until = performance.now() + 10_000;
  for (;;) {
    const c0 = cpuSeconds(pid);
    await sleep(200);
    if (cpuSeconds(pid) - c0 < 0.01 || performance.now() >= until) return;
  }
}

/** Loads `url` `loads` times, each cold then warm, until `minRows` of `selector` are in the DOM (`minRows` 1: one element, not rows). */
async function timePage(browser: Browser, svc: BenchService, apiKey: string, url: string, selector: string, opts: UiBenchOptions, minRows = opts.minRows) {
  const cold: number[] = [];
  const coldWall: number[] = [];
  const warm: number[] = [];
  const warmWall: number[] = [];
  // CPU during each cold load: the service's (all its threads) and the rest of the machine's
  // (Chromium, nearly all of it): on two cores, what the browser takes the service cannot use.
  const coldServiceCpu: number[] = [];
  const coldOtherCpu: number[] = [];
  const pid = svc.child.pid!;
  let rows = 0;
  let breakdown: unknown = null;
  const errors: string[] = [];
  for (let i = 0; i < opts.loads; i++) {
    const p = await openPage(browser, svc.apiUrl, { apiKey, project: svc.projectId });
    try {
      for (const [pageMs, wallMs] of [
        [cold, coldWall],
        [warm, warmWall],
      ]) {
        // The previous load's reads still running on the service (a page closed or reloaded does
        // not stop them: the analytics page's lower panels) would be timed with this one.
        await serviceIdle(pid);
        const t0 = performance.now();
        const [service0, busy0] = [cpuSeconds(pid), machineBusySeconds()];
        if (pageMs === cold) await p.page.goto(url, { waitUntil: 'commit' });
        else await p.page.reload({ waitUntil: 'commit' });
        const handle = await p.page.waitForFunction(
          ({ sel, n }) => (document.querySelectorAll(sel).length >= n ? performance.now() : false),
          { sel: selector, n: minRows },
          { polling: 'raf', timeout: 60_000 },
        );
        wallMs.push(performance.now() - t0);
        if (pageMs === cold) {
          const service = cpuSeconds(pid) - service0;
          coldServiceCpu.push(service * 1000);
          coldOtherCpu.push((machineBusySeconds() - busy0 - service) * 1000);
        }
        pageMs.push((await handle.jsonValue()) as number);
        if (pageMs === cold && i === 0) breakdown = await p.page.evaluate(COLD_BREAKDOWN);
        rows = await p.page.locator(selector).count();
      }
      errors.push(...p.errors);
    } finally {
      await p.close();
    }
  }
  return {
    cold_page_ms: summarize(cold),
    cold_wall_ms: summarize(coldWall),
    cold_service_cpu_ms: summarize(coldServiceCpu),
    cold_other_cpu_ms: summarize(coldOtherCpu),
    warm_page_ms: summarize(warm),
    warm_wall_ms: summarize(warmWall),
    rows_in_dom: rows,
    first_cold_load: breakdown,
    console_errors: errors.length,
    first_error: errors[0] ?? null,
  };
}

/** One run of `ui`: a fresh service, the fill, two big traces, then the page loads. */
export async function benchUi(opts: UiBenchOptions) {
  ensureUiBuilt();
  const js = clientJsBytes();
  const dataDir = makeDataDir('agent-eval-bench-ui-');
  const first = await startBenchService({ AUTH_MODE: 'required' }, dataDir);
  await first.stop();
  const seedStart = performance.now();
  const ch = await connectClickHouse({ dataDir });
  try {
    await seedBySql(ch.client, { project: first.projectId, traces: opts.traces, now: Date.now(), ...SEED });
  } finally {
    await ch.close();
  }
  console.log(
    JSON.stringify({ phase: 'seed', traces: opts.traces, spans: opts.traces * SEED.spansPerTrace, seconds: round((performance.now() - seedStart) / 1000, 1) }),
  );
  const svc = await startBenchService({ AUTH_MODE: 'required' }, dataDir);
  let browser: Browser | undefined;
  try {
    const apiKey = readApiKey(svc.dataDir);
    if (!apiKey) throw new Error('the bench service wrote no credentials.json');

    const big: Record<string, string> = {};
    for (const spans of [3_000, 10_000]) {
      const id = `ui-bench-${spans}-${Date.now().toString(36)}`;
      const status = await post(`${svc.apiUrl}/api/traces/ingest`, JSON.stringify(nestedAgentTrace(id, spans)), {
        ...svc.headers,
        'content-type': 'application/json',
      });
      if (status !== 201) throw new Error(`ingest of the ${spans}-span trace: ${status}`);
      big[spans] = id;
    }

    // The API calls the pages start with, alone (what of a page's time is the API's).
    const apiMs = async (pathname: string) => {
      const ms: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await getTimed(`${svc.apiUrl}${pathname}`, svc.headers);
        if (res.status !== 200) throw new Error(`GET ${pathname}: ${res.status}`);
        ms.push(res.ms);
      }
      return summarize(ms);
    };
    const stored = ((await getJson(`${svc.apiUrl}/api/traces?limit=1`, svc.headers)).body as { total: number }).total;
    const api = {
      trace_list_ms: await apiMs('/api/traces?limit=50'),
      trace_list_by_cost_ms: await apiMs('/api/traces?limit=50&sort=cost'),
      trace_list_by_tokens_ms: await apiMs('/api/traces?limit=50&sort=tokens'),
      trace_list_by_duration_ms: await apiMs('/api/traces?limit=50&sort=duration'),
      trace_list_production_ms: await apiMs('/api/traces?limit=50&source=production'),
      session_list_ms: await apiMs('/api/sessions?limit=50'),
      cost_analytics_7d_ms: await apiMs('/api/analytics/costs?range=7d&interval=1d'),
      trace_3000_first_page_ms: await apiMs(`/api/traces/${encodeURIComponent(big[3_000])}?spans_limit=2000`),
      trace_10000_first_page_ms: await apiMs(`/api/traces/${encodeURIComponent(big[10_000])}?spans_limit=2000`),
    };
    console.log(JSON.stringify({ phase: 'api', ...api }));

    browser = await launchBrowser();
    const pages: Record<string, Awaited<ReturnType<typeof timePage>>> = {};
    for (const [name, url, selector, minRows] of [
      ['traces', '/traces', SEL.traceRow, undefined],
      ['traces_by_cost', '/traces?sort=cost', SEL.traceRow, undefined],
      ['traces_production', '/traces?source=production', SEL.traceRow, undefined],
      ['sessions', '/sessions', '[data-testid="session-row"]', undefined],
      // The week's analytics page until its first screen is filled: the cost total and the three
      // panels above it (score trends, correlation, latency percentiles; each shows one of two
      // elements, its data or its empty state), the panels below asking after them.
      ['analytics_costs_7d', '/analytics?range=7d', ANALYTICS_FIRST_SCREEN, 4],
      // The page as it opens (the last 24 hours), as above.
      ['analytics_costs_24h', '/analytics', ANALYTICS_FIRST_SCREEN, 4],
    ] as const) {
      pages[name] = await timePage(browser, svc, apiKey, url, selector, opts, minRows);
      console.log(JSON.stringify({ phase: `page-${name}`, stored_traces: stored, ...pages[name] }));
    }
    const waterfall3k = await timePage(browser, svc, apiKey, `/traces/${encodeURIComponent(big[3_000])}`, SEL.waterfallRow, opts);
    console.log(JSON.stringify({ phase: 'waterfall-3000', ...waterfall3k }));
    const waterfall10k = await timePage(browser, svc, apiKey, `/traces/${encodeURIComponent(big[10_000])}`, SEL.waterfallRow, opts);
    console.log(JSON.stringify({ phase: 'waterfall-10000', ...waterfall10k }));
    const result = {
      stored_traces: stored,
      ui_js: { files: js.files, bytes: js.bytes, kib: round(js.bytes / 1024, 1) },
      api,
      pages,
      waterfall_3000_spans: waterfall3k,
      waterfall_10000_spans: waterfall10k,
    };
    console.log(JSON.stringify({ phase: 'ui', ui_js_bytes: js.bytes, ui_js_files: js.files }));
    return result;
  } finally {
    await browser?.close();
    await svc.stop();
  }
}
