import { describe, expect, it } from 'vitest';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { ORDER, runMemoryVersions, seedConversationRuns } from '../helpers/compare-conversations.js';
import { conversationAgent } from '../helpers/conversation-agents.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * Conversation runs on the dashboard, in Chromium against the real service: the compare page
 * shows the two conversations of a scripted case side by side, turns aligned, with the turn where
 * the candidate forgets the order number (5) marked as the first divergence and scrolled into
 * view in its pane, on seeded runs and on two runs the workflow executed against two versions of
 * a memory agent; the run page shows a conversation trial's turns. Text with emoji, Hebrew and
 * code fences shows as written; no sideways scroll at 420 px. Screenshots:
 * test-output/screenshots/compare-conversation*.png, run-conversation*.png.
 */
let ids: { baseline: string; candidate: string };
/** Two runs of one suite the workflow executed, against the memory agent's two versions. */
let executed: { baseline: string; candidate: string };
let agent: TestAgent | undefined;
const NARROW = { width: 420, height: 900 };
/** A page's first answer on a loaded machine. */
const LOAD = { timeout: 20_000 };

const { open } = dashboardSuite({
  env: { EVAL_RETRY_TIME_SCALE: '0.001' },
  async seed(svc) {
    const metadata = openServiceMetadata(svc.dataDir);
    try {
      ids = await seedConversationRuns(metadata.runs, svc.defaultProjectId);
    } finally {
      await metadata.close();
    }
    agent = await startTestAgent(conversationAgent);
    executed = await runMemoryVersions(svc, agent.url);
  },
  after: async () => {
    await agent?.close();
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

  it('compares two runs the workflow executed: the turn where the new version forgot the name is the one marked', async () => {
    const p = await open();
    await p.page.goto(`/compare/runs?baseline=${executed.baseline}&candidate=${executed.candidate}`);
    const conversation = p.page.locator('[data-testid="compare-conversation"][data-case="memory remembers"]');
    const view = conversation.getByTestId('conversation-side-by-side');
    await expect.poll(() => view.locator('[data-testid="side-turn"]').count(), LOAD).toBe(5);
    const diverging = await view.locator('[data-testid="side-turn"][data-diverges="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-turn')));
    expect(diverging).toEqual(['4', '5']);
    expect(await view.getByTestId('first-divergence-mark').count()).toBe(1);
    const four = view.locator('[data-testid="side-turn"][data-turn="4"]');
    expect(await four.getByTestId('first-divergence-mark').count()).toBe(1);
    expect(await view.getByTestId('first-divergence').textContent()).toContain('First diverging turn: 4');
    expect(await four.getByTestId('side-baseline').getByTestId('turn-answer').textContent()).toContain('Your name is Ana.');
    expect(await four.getByTestId('side-candidate').getByTestId('turn-answer').textContent()).toContain('I do not know your name.');
    expect(await four.getByTestId('side-candidate').getByTestId('turn-score-delta').textContent()).toContain('-1.00');
    // Turns 1 to 3 agree: the same words on both sides.
    expect(await view.locator('[data-testid="side-turn"][data-turn="1"] [data-testid="side-candidate"] [data-testid="turn-answer"]').textContent()).toContain(
      'Noted.',
    );
    await p.screenshot('compare-conversation-executed');
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
