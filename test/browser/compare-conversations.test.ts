import { describe, expect, it } from 'vitest';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { ORDER, seedConversationRuns } from '../helpers/compare-conversations.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';

/**
 * Conversation runs on the dashboard, in Chromium against the real service: the compare page
 * shows the two conversations of a scripted case side by side, turns aligned, with the turn where
 * the candidate forgets the order number (5) marked as the first divergence and scrolled into
 * view in its pane; the run page shows a conversation trial's turns. Text with emoji, Hebrew and
 * code fences shows as written; no sideways scroll at 420 px. Screenshots:
 * test-output/screenshots/compare-conversation*.png, run-conversation*.png.
 */
let ids: { baseline: string; candidate: string };
const NARROW = { width: 420, height: 900 };
/** A page's first answer on a loaded machine. */
const LOAD = { timeout: 20_000 };

const { open } = dashboardSuite({
  async seed(svc) {
    const metadata = openServiceMetadata(svc.dataDir);
    try {
      ids = await seedConversationRuns(metadata.runs, svc.defaultProjectId);
    } finally {
      await metadata.close();
    }
  },
});

const words = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();
const sideways = (p: WatchedPage) => p.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('conversation runs in Chromium', () => {
  it('compares two conversations side by side, turns aligned, the first diverging turn marked and scrolled into view', async () => {
    const p = await open();
    await p.page.goto(`/compare/runs?baseline=${ids.baseline}&candidate=${ids.candidate}`);
    const view = p.page.getByTestId('conversation-side-by-side');
    await expect.poll(() => view.locator('[data-testid="side-turn"]').count(), LOAD).toBe(6);
    expect(await p.page.getByTestId('compare-conversation').getAttribute('data-case')).toBe('refund-broken-kettle');

    // Only turn 5 diverges, and it is the one marked.
    const diverging = await view.locator('[data-testid="side-turn"][data-diverges="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-turn')));
    expect(diverging).toEqual(['5']);
    const five = view.locator('[data-testid="side-turn"][data-turn="5"]');
    expect(await five.getByTestId('first-divergence-mark').count()).toBe(1);
    expect(await view.getByTestId('first-divergence-mark').count()).toBe(1);
    expect(await view.getByTestId('first-divergence').textContent()).toContain('First diverging turn: 5');

    // Both sides of the turn, aligned in one row: the baseline keeps the order, the candidate asks again.
    expect(await five.getByTestId('side-baseline').getByTestId('turn-answer').textContent()).toContain(`order ${ORDER}`);
    expect(await five.getByTestId('side-candidate').getByTestId('turn-answer').textContent()).toContain('order number again');
    expect(await five.getByTestId('side-candidate').getByTestId('turn-score-delta').textContent()).toContain('-1.00');
    const [left, right] = await Promise.all([five.getByTestId('side-baseline').boundingBox(), five.getByTestId('side-candidate').boundingBox()]);
    expect(left!.x).toBeLessThan(right!.x);
    expect(Math.abs(left!.y - right!.y)).toBeLessThan(2);

    // Text as written: emoji, Hebrew, a code fence's lines, a tool call; markup never interpreted.
    expect(await view.locator('[data-turn="1"] [data-testid="turn-user"]').first().textContent()).toContain('😞');
    expect(await view.locator('[data-turn="4"] [data-testid="side-candidate"]').textContent()).toContain('דנה');
    expect(await view.locator('[data-turn="2"] [data-testid="side-baseline"] [data-testid="turn-answer"] pre').textContent()).toContain(
      '```\nhttps://support.example.com/claims/4417/photos\n```',
    );
    expect(await view.locator('[data-turn="1"] [data-testid="side-baseline"] [data-testid="turn-tool-call"]').textContent()).toContain('lookup_order');
    expect(await view.locator('strong, em').filter({ hasText: 'Glass kettle' }).count()).toBe(0);
    expect(await view.locator('img').count()).toBe(0);
    expect(await view.locator('[data-turn="6"] [data-testid="side-candidate"] [data-testid="turn-answer"]').textContent()).toContain('<img src=x onerror=');
    expect(await p.page.title()).not.toContain('pwned');

    // The pane opened on the first divergence: turn 5 is in view inside it.
    const pane = view.getByTestId('side-by-side-pane');
    await expect.poll(() => pane.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
    const [paneBox, fiveBox] = await Promise.all([pane.boundingBox(), five.boundingBox()]);
    expect(fiveBox!.y).toBeGreaterThanOrEqual(paneBox!.y - 1);
    expect(fiveBox!.y).toBeLessThan(paneBox!.y + paneBox!.height);
    await p.screenshot('compare-conversation');

    // Scrolled back to turn 1, the header's link brings turn 5 back into view.
    await pane.evaluate((el) => el.scrollTo({ top: 0 }));
    await expect.poll(() => pane.evaluate((el) => el.scrollTop)).toBe(0);
    await view.getByTestId('first-divergence').getByRole('link').click();
    await expect.poll(() => pane.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
    expect(describeErrors(p)).toBe('');
  });

  it('stacks the two sides on a narrow window, with no sideways scroll', async () => {
    const p = await open({ viewport: NARROW });
    await p.page.goto(`/compare/runs?baseline=${ids.baseline}&candidate=${ids.candidate}`);
    const five = p.page.locator('[data-testid="side-turn"][data-turn="5"]');
    await expect.poll(() => five.count(), LOAD).toBe(1);
    const [left, right] = await Promise.all([five.getByTestId('side-baseline').boundingBox(), five.getByTestId('side-candidate').boundingBox()]);
    expect(right!.y).toBeGreaterThan(left!.y + left!.height - 1);
    expect(await sideways(p)).toBeLessThanOrEqual(0);
    await p.screenshot('compare-conversation-narrow');
    expect(describeErrors(p)).toBe('');
  });

  it("shows a conversation trial's turns on the run page: user, agent, per-turn scores, conversation scores, why it ended", async () => {
    for (const viewport of [undefined, NARROW]) {
      const p = await open(viewport ? { viewport } : {});
      await p.page.goto(`/runs/${ids.candidate}`);
      const row = p.page.locator('[data-testid="case-row"][data-case-name="refund-broken-kettle"]');
      await expect.poll(() => row.count(), LOAD).toBe(1);
      await row.getByTestId('case-toggle').click();
      const conv = p.page.getByTestId('run-conversation');
      await expect.poll(() => conv.locator('[data-testid="run-turn"]').count(), LOAD).toBe(6);
      expect(words(await conv.getByTestId('run-conversation-ended').textContent())).toContain('6 turns; ended because the script ran out of turns');
      const five = conv.locator('[data-testid="run-turn"][data-turn="5"]');
      expect(await five.getAttribute('data-passed')).toBe('false');
      expect(await five.getByTestId('turn-user').textContent()).toContain('which order is the refund for');
      expect(await five.locator('[data-testid="turn-score"][data-scorer="contains"]').textContent()).toContain('0.00');
      expect(await conv.locator('[data-testid="run-turn"][data-turn="4"]').getAttribute('data-passed')).toBe('true');
      // The conversation-level score, with its reason.
      expect(await p.page.locator('[data-testid="case-scorer-detail"][data-scorer="knowledgeRetention"]').textContent()).toContain(
        `forgot the order number ${ORDER} at turn 5`,
      );
      if (viewport) expect(await sideways(p)).toBeLessThanOrEqual(0);
      await p.screenshot(viewport ? 'run-conversation-narrow' : 'run-conversation');
      expect(describeErrors(p)).toBe('');
    }
  });
});
