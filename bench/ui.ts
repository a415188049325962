import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { UI_BUILD_DIR } from '../scripts/build-ui.js';
import { ensureUiBuilt, launchBrowser, openPage } from '../test/helpers/browser.js';
import { nestedAgentTrace, SEL } from '../test/helpers/dashboard.js';
import { readApiKey } from '../test/helpers/credentials.js';
import { getTimed, post, round, summarize, type SpanSize } from './lib.js';
import { closedLoop, waitVisible } from './load.js';
import { jsonSender, jsonSource } from './senders.js';
import { startBenchService, type BenchService } from './service.js';

/**
 * Issue 10's dashboard figures, in Debian's Chromium driven by playwright-core: with `traces`
 * (100,000) traces stored, the time until /traces shows its rows, and until the waterfall of a
 * 3,000-span and a 10,000-span trace is drawn (its first rows in the DOM). Each page is loaded
 * `loads` times: cold (a fresh browser context: no cache, no storage but the API key) and warm
 * (a reload in the same context). Two clocks: `page_ms` is the page's own (navigation start to
 * the rows, read in the page on the animation frame that first has them); `wall_ms` is from
 * page.goto to playwright seeing them. Also: the API calls those pages start with, timed alone
 * (the list's first page; a trace's first page of 2,000 spans, as the UI asks), and the built
 * UI's JavaScript (every .js under the build's client dir, uncompressed bytes). Targets: under 1 s each.
 * Run: `npm run bench -- ui [--quick] [--runs N] [--traces N] [--concurrency N]`.
 */
export interface UiBenchOptions {
  traces: number;
  concurrency: number;
  loads: number;
  /** Rows that must be in the DOM for a list or waterfall to count as shown. */
  minRows: number;
}

/** The fill's traces: 3 spans of a few dozen bytes; the list reads summaries, not bodies. */
const TINY: SpanSize = { name: 'tiny', input: () => 48, output: () => 24 };

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

/** Loads `url` `loads` times, each cold then warm, until `minRows` of `selector` are in the DOM. */
async function timePage(browser: Browser, svc: BenchService, apiKey: string, url: string, selector: string, opts: UiBenchOptions) {
  const cold: number[] = [];
  const coldWall: number[] = [];
  const warm: number[] = [];
  const warmWall: number[] = [];
  let rows = 0;
  const errors: string[] = [];
  for (let i = 0; i < opts.loads; i++) {
    const p = await openPage(browser, svc.apiUrl, { apiKey, project: svc.projectId });
    try {
      for (const [pageMs, wallMs] of [
        [cold, coldWall],
        [warm, warmWall],
      ]) {
        const t0 = performance.now();
        if (pageMs === cold) await p.page.goto(url, { waitUntil: 'commit' });
        else await p.page.reload({ waitUntil: 'commit' });
        const handle = await p.page.waitForFunction(
          ({ sel, n }) => (document.querySelectorAll(sel).length >= n ? performance.now() : false),
          { sel: selector, n: opts.minRows },
          { polling: 'raf', timeout: 60_000 },
        );
        wallMs.push(performance.now() - t0);
        pageMs.push((await handle.jsonValue()) as number);
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
    warm_page_ms: summarize(warm),
    warm_wall_ms: summarize(warmWall),
    rows_in_dom: rows,
    console_errors: errors.length,
    first_error: errors[0] ?? null,
  };
}

/** One run of `ui`: a fresh service, the fill, two big traces, then the page loads. */
export async function benchUi(opts: UiBenchOptions) {
  ensureUiBuilt();
  const js = clientJsBytes();
  const svc = await startBenchService({ AUTH_MODE: 'required' });
  let browser: Browser | undefined;
  try {
    const apiKey = readApiKey(svc.dataDir);
    if (!apiKey) throw new Error('the bench service wrote no credentials.json');

    const fill = await closedLoop(jsonSender(svc.apiUrl, svc.projectId, svc.headers), jsonSource(3, TINY, `ui-${Date.now().toString(36)}`), {
      clients: opts.concurrency,
      seconds: Infinity,
      maxSpans: opts.traces * 3,
    });
    const seen = await waitVisible(svc, fill.acked.traces, 300);
    console.log(
      JSON.stringify({
        phase: 'fill',
        traces: fill.acked.traces,
        failed: fill.failed,
        seconds: round(fill.seconds, 1),
        traces_per_s: Math.round(fill.acked.traces / fill.seconds),
        visible: seen.visible,
      }),
    );
    if (fill.failed > 0 || seen.visible < fill.acked.traces)
      throw new Error(`fill incomplete: ${fill.failed} failed, ${seen.visible} of ${fill.acked.traces} visible`);

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
    const api = {
      trace_list_ms: await apiMs('/api/traces?limit=50'),
      trace_3000_first_page_ms: await apiMs(`/api/traces/${encodeURIComponent(big[3_000])}?spans_limit=2000`),
      trace_10000_first_page_ms: await apiMs(`/api/traces/${encodeURIComponent(big[10_000])}?spans_limit=2000`),
    };
    console.log(JSON.stringify({ phase: 'api', ...api }));

    browser = await launchBrowser();
    const list = await timePage(browser, svc, apiKey, '/traces', SEL.traceRow, opts);
    console.log(JSON.stringify({ phase: 'traces-page', stored_traces: seen.visible, ...list }));
    const waterfall3k = await timePage(browser, svc, apiKey, `/traces/${encodeURIComponent(big[3_000])}`, SEL.waterfallRow, opts);
    console.log(JSON.stringify({ phase: 'waterfall-3000', ...waterfall3k }));
    const waterfall10k = await timePage(browser, svc, apiKey, `/traces/${encodeURIComponent(big[10_000])}`, SEL.waterfallRow, opts);
    console.log(JSON.stringify({ phase: 'waterfall-10000', ...waterfall10k }));
    const result = {
      stored_traces: seen.visible,
      ui_js: { files: js.files, bytes: js.bytes, kib: round(js.bytes / 1024, 1) },
      api,
      traces_page: list,
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
