import { describe, expect, it } from 'vitest';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { corpusTexts } from '../helpers/corpus.js';
import { SEL_TRACES as SEL, traceBody } from '../helpers/dashboard-traces.js';
import { THEME_STORAGE_KEY } from '../../ui/src/lib/theme.js';

/**
 * Dark mode and keyboard shortcuts (issue 32) in Chromium against the real service: the theme
 * follows the system's (emulated prefers-color-scheme), a choice in the header pins it across a
 * reload, text stays readable on both (WCAG contrast of text and muted text on the page and on a
 * panel); the traces list, a trace page, runs and analytics drawn in both themes at 1440 and 420 px
 * (screenshots theme-*.png); and the shortcuts: `?` lists them, g t goes to the traces, `/` focuses
 * the search, j / k and Enter open a trace, e steps through a trace's errors page-wide, u goes back,
 * and none fires while typing in a field.
 */
const PROJECT = 'ui-theme-shortcuts';
const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 420, height: 900 };
const texts = corpusTexts();
const now = Date.now();
/** Newest first in the list: th-1 is the first row, th-2 the second. */
const TRACES = [1, 2, 3].map((n) => ({ id: `th-${n}`, start: now - n * 60_000 }));
const ERROR_SPANS = ['th-1-fail-a', 'th-1-fail-b'];
let key: string;

const { open } = dashboardSuite({
  timeout: 600_000,
  async seed(s) {
    key = await s.keyFor(PROJECT);
    for (const [i, t] of TRACES.entries()) {
      const body = traceBody(t.id, {
        name: `theme ${t.id}`,
        start: t.start,
        durationMs: 1200,
        status: i === 0 ? 'error' : 'ok',
        spans: [
          { id: `${t.id}-llm`, name: 'llm', type: 'generation', at: 10, ms: 600, model: 'gpt-4o', input_tokens: 120, output_tokens: 40 + i * 30 },
          {
            id: `${t.id}-tool`,
            name: 'search',
            type: 'tool',
            at: 620,
            ms: 200,
            input: { query: texts[i % texts.length].slice(0, 80) },
            output: texts[(i + 1) % texts.length],
          },
          ...(i === 0
            ? ERROR_SPANS.map((id, k) => ({ id, name: `failing step ${k + 1}`, type: 'tool', at: 830 + k * 100, ms: 80, status: 'error' as const }))
            : []),
        ],
      });
      const res = await s.api('/api/traces/ingest', { method: 'POST', json: body, project: PROJECT });
      expect(res.status, await res.clone().text()).toBe(201);
      for (const [name, value] of [
        ['helpfulness', 0.9 - i * 0.3],
        ['faithfulness', 0.5 + i * 0.2],
      ] as const) {
        const score = await s.api('/api/scores', { method: 'POST', json: { trace_id: t.id, name, value }, project: PROJECT });
        expect(score.status, await score.clone().text()).toBe(201);
      }
    }
  },
});

const openPage = (viewport = WIDE) => open({ apiKey: key, project: PROJECT, viewport });

/** The page's background and text colours, and the contrast ratios that matter (WCAG 2: 4.5 for text). */
async function colours(p: WatchedPage) {
  return p.page.evaluate(() => {
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const lum = (c: string) => {
      const [r, g, b] = rgb(c).map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const contrast = (a: string, b: string) => {
      const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
      return (hi + 0.05) / (lo + 0.05);
    };
    const probe = (css: string) => {
      const el = document.createElement('span');
      el.style.color = css;
      document.body.appendChild(el);
      const c = getComputedStyle(el).color;
      el.remove();
      return c;
    };
    const root = getComputedStyle(document.documentElement);
    const bg = root.backgroundColor;
    const text = root.color;
    const [panel, muted, accent, error] = ['var(--panel)', 'var(--muted)', 'var(--accent)', 'var(--error)'].map(probe);
    return {
      bg,
      text,
      bgLuminance: lum(bg),
      textOnBg: contrast(text, bg),
      textOnPanel: contrast(text, panel),
      mutedOnBg: contrast(muted, bg),
      mutedOnPanel: contrast(muted, panel),
      accentOnPanel: contrast(accent, panel),
      errorOnPanel: contrast(error, panel),
    };
  });
}

function expectReadable(c: Awaited<ReturnType<typeof colours>>) {
  expect(c.textOnBg).toBeGreaterThanOrEqual(7);
  expect(c.textOnPanel).toBeGreaterThanOrEqual(7);
  expect(c.mutedOnBg).toBeGreaterThanOrEqual(4.5);
  expect(c.mutedOnPanel).toBeGreaterThanOrEqual(4.5);
  expect(c.accentOnPanel).toBeGreaterThanOrEqual(4.5);
  expect(c.errorOnPanel).toBeGreaterThanOrEqual(4.5);
}

async function settled(p: WatchedPage) {
  await expect.poll(() => p.page.locator('main .spinner').count(), { timeout: 20_000 }).toBe(0);
}

describe('dark mode', () => {
  it("follows the system's colour scheme, readable in both", async () => {
    const p = await openPage();
    await p.page.emulateMedia({ colorScheme: 'dark' });
    await p.page.goto('/traces');
    await p.page.locator(SEL.traceRow).first().waitFor();
    const dark = await colours(p);
    expect(dark.bgLuminance).toBeLessThan(0.05);
    expectReadable(dark);
    // The system turns light: the page follows without a reload.
    await p.page.emulateMedia({ colorScheme: 'light' });
    const light = await colours(p);
    expect(light.bgLuminance).toBeGreaterThan(0.8);
    expect(light.bg).not.toBe(dark.bg);
    expect(light.text).not.toBe(dark.text);
    expectReadable(light);
    expect(await p.page.getByTestId('theme-switch').inputValue()).toBe('system');
    expect(describeErrors(p)).toBe('');
  });

  it('keeps the choice made in the header across a reload, over the system', async () => {
    const p = await openPage();
    await p.page.emulateMedia({ colorScheme: 'light' });
    await p.page.goto('/traces');
    await p.page.locator(SEL.traceRow).first().waitFor();
    await p.page.getByTestId('theme-switch').selectOption('dark');
    expect((await colours(p)).bgLuminance).toBeLessThan(0.05);
    await p.page.reload();
    await p.page.locator(SEL.traceRow).first().waitFor();
    expect(await p.page.evaluate((k) => localStorage.getItem(k), THEME_STORAGE_KEY)).toBe('dark');
    expect(await p.page.getByTestId('theme-switch').inputValue()).toBe('dark');
    const dark = await colours(p);
    expect(dark.bgLuminance).toBeLessThan(0.05);
    expectReadable(dark);
    // Light pinned under a dark system, then back to following it.
    await p.page.emulateMedia({ colorScheme: 'dark' });
    await p.page.getByTestId('theme-switch').selectOption('light');
    expect((await colours(p)).bgLuminance).toBeGreaterThan(0.8);
    await p.page.getByTestId('theme-switch').selectOption('system');
    expect((await colours(p)).bgLuminance).toBeLessThan(0.05);
    expect(await p.page.evaluate((k) => localStorage.getItem(k), THEME_STORAGE_KEY)).toBeNull();
    expect(describeErrors(p)).toBe('');
  });

  it('draws the traces list, a trace, runs and analytics in both themes, wide and narrow', async () => {
    const pages: Array<{ name: string; path: string; ready: string }> = [
      { name: 'traces', path: '/traces', ready: SEL.traceRow },
      { name: 'trace', path: `/traces/${TRACES[0].id}?span=${ERROR_SPANS[0]}`, ready: '[data-testid="waterfall"]' },
      { name: 'runs', path: '/runs', ready: 'main h1' },
      { name: 'analytics', path: '/analytics', ready: 'main canvas' },
    ];
    for (const viewport of [WIDE, NARROW]) {
      for (const scheme of ['light', 'dark'] as const) {
        const p = await openPage(viewport);
        await p.page.emulateMedia({ colorScheme: scheme });
        for (const pg of pages) {
          await p.page.goto(pg.path);
          await p.page.locator(pg.ready).first().waitFor({ timeout: 20_000 });
          await settled(p);
          const c = await colours(p);
          expect(c.bgLuminance < 0.2, `${pg.path} in ${scheme}`).toBe(scheme === 'dark');
          expectReadable(c);
          const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          expect(overflow, `${pg.path} overflows by ${overflow}px`).toBeLessThanOrEqual(1);
          await p.screenshot(`theme-${pg.name}-${scheme}-${viewport.width}`);
        }
        expect(describeErrors(p)).toBe('');
        await p.close();
      }
    }
  });
});

describe('keyboard shortcuts', () => {
  const active = (p: WatchedPage) => p.page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName ?? null);
  const path = (p: WatchedPage) => new URL(p.page.url()).pathname;

  it('lists them under ?, goes to the traces with g t, focuses the search with /', async () => {
    const p = await openPage();
    await p.page.goto('/runs');
    await p.page.locator('main h1').first().waitFor();
    await p.page.keyboard.press('?');
    const dialog = p.page.getByTestId('shortcuts-dialog');
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.innerText()).toContain('Go to Traces');
    await p.screenshot('theme-shortcuts-dialog');
    // Keys do nothing else while it is open; Escape closes it.
    await p.page.keyboard.press('g');
    await p.page.keyboard.press('t');
    expect(path(p)).toBe('/runs');
    await p.page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await p.page.keyboard.press('g');
    await p.page.keyboard.press('t');
    await expect.poll(() => path(p)).toBe('/traces');
    await p.page.locator(SEL.traceRow).first().waitFor();
    await p.page.keyboard.press('/');
    await expect.poll(() => active(p)).toBe('filter-search');
    // Typed in the field, the keys are text, not shortcuts.
    await p.page.keyboard.type('g r ?/jk');
    expect(await p.page.getByTestId('filter-search').inputValue()).toBe('g r ?/jk');
    expect(path(p)).toBe('/traces');
    expect(await p.page.getByTestId('shortcuts-dialog').isVisible()).toBe(false);
    expect(describeErrors(p)).toBe('');
  });

  it('opens a trace with j / k and Enter, steps through its errors with e anywhere, goes back with u', async () => {
    const p = await openPage();
    await p.page.goto('/traces');
    await p.page.locator(SEL.traceRow).first().waitFor();
    await p.page.keyboard.press('j');
    await expect.poll(() => p.page.evaluate(() => document.activeElement?.getAttribute('data-trace-id'))).toBe('th-1');
    await p.page.keyboard.press('j');
    await p.page.keyboard.press('j');
    await p.page.keyboard.press('k');
    await expect.poll(() => p.page.evaluate(() => document.activeElement?.getAttribute('data-trace-id'))).toBe('th-2');
    await p.page.keyboard.press('k');
    await p.page.keyboard.press('Enter');
    await expect.poll(() => path(p)).toBe('/traces/th-1');
    await p.page.locator('[data-testid="waterfall"]').waitFor();
    // The focus on the page, not in the waterfall: e still finds the errors, in tree order, and E goes back.
    await p.page.locator('main h1').first().click();
    const span = () => new URL(p.page.url()).searchParams.get('span');
    await p.page.keyboard.press('e');
    await expect.poll(span).toBe(ERROR_SPANS[0]);
    await p.page.keyboard.press('e');
    await expect.poll(span).toBe(ERROR_SPANS[1]);
    await p.page.keyboard.press('Shift+E');
    await expect.poll(span).toBe(ERROR_SPANS[0]);
    // In the span search, e is a letter.
    await p.page.getByTestId('span-search').click();
    await p.page.keyboard.type('e');
    expect(span()).toBe(ERROR_SPANS[0]);
    await p.page.locator('main h1').first().click();
    await p.page.keyboard.press('u');
    await expect.poll(() => path(p)).toBe('/traces');
    expect(describeErrors(p)).toBe('');
  });
});
