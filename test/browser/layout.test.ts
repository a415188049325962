import { describe, expect, it } from 'vitest';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { NAV } from '../../ui/src/lib/nav.js';

/**
 * What every page shares (ui/src/routes/+layout.svelte), in a real browser against the real
 * service: each page of the main navigation opens on a project with no data (its empty state, no
 * console error) at 1280 px and at 420 px, where the links fold behind a Menu button; the
 * keyboard reaches "Skip to content" first and then the links; an unknown path says so.
 * Screenshots: test-output/screenshots/layout-*.png.
 */
/** A project of its own, so every page shows its empty state. */
const EMPTY_PROJECT = 'layout-empty';

const suite = dashboardSuite();

async function open(viewport?: { width: number; height: number }): Promise<WatchedPage> {
  const key = await suite.svc.keyFor(EMPTY_PROJECT);
  return suite.open({ apiKey: key, project: EMPTY_PROJECT, viewport });
}

describe('dashboard layout', () => {
  it('opens every page of the navigation on an empty project without a console error, wide and narrow', async () => {
    for (const viewport of [undefined, { width: 420, height: 900 }]) {
      const p = await open(viewport);
      for (const item of NAV) {
        await p.page.goto(item.href);
        // Settled: the page's own heading is there and nothing is still loading.
        await expect.poll(() => p.page.locator('main h1').first().isVisible(), { timeout: 20_000 }).toBe(true);
        await expect.poll(() => p.page.locator('main .spinner').count(), { timeout: 20_000 }).toBe(0);
        // Nothing wider than the window: narrow pages scroll inside their tables, not sideways.
        const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${item.href} overflows the window by ${overflow}px`).toBeLessThanOrEqual(1);
        await p.screenshot(`layout-${viewport ? 'narrow' : 'wide'}-${item.href.slice(1).replace(/\//g, '-')}`);
      }
      expect(describeErrors(p)).toBe('');
    }
  });

  it('folds the links behind a Menu button on a narrow window', async () => {
    const p = await open({ width: 420, height: 900 });
    await p.page.goto('/traces');
    const toggle = p.page.getByTestId('menu-toggle');
    await expect.poll(() => toggle.isVisible()).toBe(true);
    const runsLink = p.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' });
    expect(await runsLink.isVisible()).toBe(false);
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => runsLink.isVisible()).toBe(true);
    await runsLink.click();
    await expect.poll(() => new URL(p.page.url()).pathname).toBe('/runs');
    // Navigating folds the menu again.
    await expect.poll(() => runsLink.isVisible()).toBe(false);
    await p.screenshot('layout-narrow-menu');
    expect(describeErrors(p)).toBe('');
  });

  it('is keyboard navigable: Skip to content first, then the links, which Enter follows', async () => {
    const p = await open();
    await p.page.goto('/traces');
    await expect.poll(() => p.page.locator('main h1').first().isVisible()).toBe(true);
    await p.page.keyboard.press('Tab');
    expect(await p.page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Skip to content');
    await p.page.keyboard.press('Tab');
    expect(await p.page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('agent-eval');
    // Tab to the Runs link and follow it with Enter.
    for (let i = 0; i < 10; i++) {
      await p.page.keyboard.press('Tab');
      if ((await p.page.evaluate(() => document.activeElement?.textContent?.trim())) === 'Runs') break;
    }
    expect(await p.page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Runs');
    await p.page.keyboard.press('Enter');
    await expect.poll(() => new URL(p.page.url()).pathname).toBe('/runs');
    expect(describeErrors(p)).toBe('');
  });

  it('says so for a path that is no page', async () => {
    const p = await open();
    await p.page.goto('/no/such/page');
    await expect.poll(() => p.page.getByTestId('page-not-found').isVisible()).toBe(true);
    expect(await p.page.locator('main h1').textContent()).toBe('Page not found');
    expect(await p.page.getByTestId('page-not-found').textContent()).toContain('/no/such/page');
    expect(describeErrors(p)).toBe('');
  });
});
