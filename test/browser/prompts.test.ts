import { describe, expect, it } from 'vitest';
import { describeErrors } from '../helpers/browser.js';
import { PROMPTS } from '../helpers/dashboard-feedback.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { ingestTrace } from '../helpers/ingest-trace.js';

/**
 * /prompts in Chromium against the real service: a prompt's versions and labels, the diff of
 * v1 and v3 (removed and added lines, marked - and +), a label moved and removed from the UI
 * (checked through the API), the traces that used a version, and a new version written from
 * the UI. Screenshots: test-output/screenshots/prompts-*.png.
 */
const NAME = 'support-reply';
const V1 = 'You are a support agent.\nAnswer the question: {{question}}\nBe polite.\nSign as the support team.';
const V2 = 'You are a support agent.\nAnswer the question: {{question}}\nBe polite and brief.\nSign as the support team.';
const V3 = 'You are a support agent for {{product}}.\nAnswer the question: {{question}}\nKeep it short.\nSign as the support team.';

/** A trace whose one generation span names the prompt's version (docs/prompts.md, "Linking traces to prompts"). */
function linkedTrace(traceId: string, version: number, start: number) {
  const attributes = { model: 'gpt-4o', 'agent_eval.prompt.name': NAME, 'agent_eval.prompt.version': version };
  return ingestTrace(traceId, { name: 'support', start, durationMs: 900, root: { span_id: `${traceId}-llm`, name: 'llm', type: 'generation', attributes } });
}

const { svc, open, call } = dashboardSuite({
  async seed() {
    await call(
      '/api/prompts',
      { method: 'POST', json: { name: NAME, type: 'text', template: V1, labels: ['production'], commit_message: 'first draft' } },
      201,
    );
    await call(`/api/prompts/${NAME}`, { method: 'PUT', json: { template: V2, labels: ['staging'], commit_message: 'briefer' } });
    await call(`/api/prompts/${NAME}`, { method: 'PUT', json: { template: V3, commit_message: 'name the product' } });
    await call(
      '/api/prompts',
      {
        method: 'POST',
        json: {
          name: 'triage',
          type: 'chat',
          messages: [
            { role: 'system', content: 'Sort tickets.' },
            { role: 'user', content: '{{ticket}}' },
          ],
          labels: ['production'],
        },
      },
      201,
    );
    const now = Date.now();
    await call('/api/traces/ingest', { method: 'POST', json: linkedTrace('pt-v2-a', 2, now - 60_000) }, 201);
    await call('/api/traces/ingest', { method: 'POST', json: linkedTrace('pt-v2-b', 2, now - 50_000) }, 201);
    await call('/api/traces/ingest', { method: 'POST', json: linkedTrace('pt-v3-a', 3, now - 40_000) }, 201);
  },
});

describe('/prompts in Chromium', () => {
  it("lists the prompts with their labels and shows a prompt's versions, labels and latest template", async () => {
    const p = await open();
    await p.page.goto('/prompts');
    await expect.poll(() => p.page.locator(PROMPTS.row).count()).toBe(2);
    const row = p.page.locator(PROMPTS.rowNamed(NAME));
    expect(await row.locator(PROMPTS.rowLabel).allTextContents()).toEqual(['production → v1', 'staging → v2']);
    await row.click();
    await p.page.waitForURL(new RegExp(`[?&]prompt=${NAME}`));
    await expect.poll(() => p.page.locator(PROMPTS.versionRow).count()).toBe(3);
    expect(await p.page.locator(PROMPTS.versionRowOf(1)).locator(PROMPTS.versionLabel).allTextContents()).toEqual(['production']);
    expect(await p.page.locator(PROMPTS.versionRowOf(2)).locator(PROMPTS.versionLabel).allTextContents()).toEqual(['staging']);
    expect(await p.page.locator(PROMPTS.versionRowOf(3)).textContent()).toContain('name the product');
    await expect.poll(() => p.page.locator(PROMPTS.template).textContent()).toBe(V3);
    expect(await p.page.locator(PROMPTS.version).textContent()).toContain('{{product}}');
    // The latest version's traces by default: all three link to the prompt.
    await expect.poll(() => p.page.locator(PROMPTS.traceRow).count()).toBe(3);
    await p.screenshot('prompts-detail');
    expect(describeErrors(p)).toBe('');
  });

  it('diffs v1 and v3: removed and added lines marked - and +, kept in the URL', async () => {
    const p = await open();
    await p.page.goto(`/prompts?prompt=${NAME}`);
    await expect.poll(() => p.page.locator(PROMPTS.versionRow).count()).toBe(3);
    await p.page.locator(PROMPTS.diffFrom).selectOption('1');
    await p.page.locator(PROMPTS.diffTo).selectOption('3');
    await p.page.locator(PROMPTS.diffShow).click();
    await p.page.waitForURL(/[?&]diff=1\.\.3/);
    const removed = p.page.locator(PROMPTS.diffLine('del'));
    const added = p.page.locator(PROMPTS.diffLine('add'));
    await expect.poll(() => removed.count()).toBe(2);
    expect(await added.count()).toBe(2);
    const removedText = await removed.allInnerTexts();
    const addedText = await added.allInnerTexts();
    expect(removedText.join('\n')).toContain('Be polite.');
    expect(removedText.join('\n')).toContain('You are a support agent.');
    expect(addedText.join('\n')).toContain('Keep it short.');
    expect(addedText.join('\n')).toContain('for {{product}}');
    // Not by colour alone: each changed line carries its marker.
    for (const text of removedText) expect(text).toMatch(/^\s*\d*\s*-\s/);
    for (const text of addedText) expect(text).toMatch(/^\s*\d*\s*\+\s/);
    // The changed words of a paired line are marked too.
    expect((await added.locator('ins').allTextContents()).join(' ')).toContain('Keep');
    expect(await p.page.locator(PROMPTS.diffSummary).textContent()).toContain('+2 lines added');
    // Unchanged lines stay, unmarked.
    expect((await p.page.locator(PROMPTS.diffLine('same')).allInnerTexts()).join('\n')).toContain('Answer the question: {{question}}');
    await p.screenshot('prompts-diff');

    await p.page.reload();
    await expect.poll(() => p.page.locator(PROMPTS.diffLine('del')).count()).toBe(2);
    expect(describeErrors(p)).toBe('');
  });

  it('moves a label to another version and removes one: the API agrees', async () => {
    const p = await open();
    p.page.on('dialog', (dialog) => void dialog.accept());
    await p.page.goto(`/prompts?prompt=${NAME}`);
    await expect.poll(() => p.page.locator(PROMPTS.label('production')).getAttribute('data-version')).toBe('1');
    await p.page.locator(PROMPTS.labelName).fill('production');
    await p.page.locator(PROMPTS.labelVersion).selectOption('3');
    expect(await p.page.locator(PROMPTS.labelSet).textContent()).toBe('Move label');
    await p.page.locator(PROMPTS.labelSet).click();
    await expect.poll(() => p.page.locator(PROMPTS.labelDone).textContent()).toBe('Label "production" moved from v1 to v3.');
    await expect.poll(() => p.page.locator(PROMPTS.label('production')).getAttribute('data-version')).toBe('3');
    await expect.poll(() => p.page.locator(PROMPTS.versionRowOf(3)).locator(PROMPTS.versionLabel).allTextContents()).toEqual(['production']);
    expect(await p.page.locator(PROMPTS.versionRowOf(1)).locator(PROMPTS.versionLabel).count()).toBe(0);
    // The list on the left follows.
    await expect.poll(() => p.page.locator(PROMPTS.rowNamed(NAME)).locator(PROMPTS.rowLabel).allTextContents()).toEqual(['production → v3', 'staging → v2']);
    expect((await call<{ version: number }>(`/api/prompts/${NAME}?label=production`)).version).toBe(3);
    await p.screenshot('prompts-label-moved');

    await p.page.locator(PROMPTS.label('staging')).locator(PROMPTS.labelRemove).click();
    await expect.poll(() => p.page.locator(PROMPTS.label('staging')).count()).toBe(0);
    const labels = await call<{ prompts: Array<{ name: string; labels: Record<string, number> }> }>(`/api/prompts?name=${NAME}`);
    expect(labels.prompts[0].labels).toEqual({ production: 3 });
    expect(describeErrors(p)).toBe('');
  });

  it("lists a version's traces, linking to them, and writes a new version from the UI", async () => {
    const p = await open();
    await p.page.goto(`/prompts?prompt=${NAME}`);
    await p.page.locator(PROMPTS.versionRowOf(2)).getByRole('link', { name: 'v2' }).click();
    await p.page.waitForURL(/[?&]version=2/);
    await expect.poll(() => p.page.locator(PROMPTS.template).textContent()).toBe(V2);
    await expect.poll(() => p.page.locator(PROMPTS.traceRow).count()).toBe(2);
    expect(await p.page.locator(PROMPTS.traceRow).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-trace-id')))).toEqual(['pt-v2-b', 'pt-v2-a']);

    await p.page.locator(PROMPTS.newVersion).click();
    expect(await p.page.locator(PROMPTS.newTemplate).inputValue()).toBe(V2);
    await p.page.locator(PROMPTS.newTemplate).fill(`${V2}\nNever promise a refund.`);
    await p.page.locator(PROMPTS.newCommit).fill('no promises');
    await p.page.locator(PROMPTS.newSave).click();
    await p.page.waitForURL(/[?&]version=4/);
    await expect.poll(() => p.page.locator(PROMPTS.versionRow).count()).toBe(4);
    await expect.poll(() => p.page.locator(PROMPTS.template).textContent()).toContain('Never promise a refund.');
    const latest = await call<{ version: number; template: string; commit_message: string }>(`/api/prompts/${NAME}`);
    expect(latest).toMatchObject({ version: 4, template: `${V2}\nNever promise a refund.`, commit_message: 'no promises' });

    await p.page.locator(PROMPTS.versionRowOf(2)).getByRole('link', { name: 'v2' }).click();
    await expect.poll(() => p.page.locator(PROMPTS.traceRow).count()).toBe(2);
    await p.page.locator(PROMPTS.traceRow).first().getByRole('link').click();
    await p.page.waitForURL(/\/traces\/pt-v2-b$/);
    expect(describeErrors(p)).toBe('');
  });

  it('says what to do next in a project without prompts, and when a prompt is not there', async () => {
    const key = await svc.keyFor('pr-empty');
    const p = await open({ apiKey: key, project: 'pr-empty' });
    await p.page.goto('/prompts');
    await expect.poll(() => p.page.locator(PROMPTS.empty).textContent()).toContain('No prompts yet');
    expect(await p.page.locator(PROMPTS.empty).textContent()).toContain('/api/prompts');
    await p.screenshot('prompts-empty');
    await p.page.goto(`/prompts?prompt=${NAME}`);
    await expect.poll(() => p.page.locator(PROMPTS.error).textContent()).toContain(`This project has no prompt named "${NAME}"`);
    // The browser logs the API's 404 itself; the page throws nothing.
    expect(p.errors.filter((e) => !e.includes('404'))).toEqual([]);
  });

  it('fits a narrow window', async () => {
    const p = await open({ viewport: { width: 420, height: 900 } });
    await p.page.goto(`/prompts?prompt=${NAME}&diff=1..3`);
    await expect.poll(() => p.page.locator(PROMPTS.diffLine('del')).count()).toBe(2);
    expect(await p.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
    await p.screenshot('prompts-narrow');
    expect(describeErrors(p)).toBe('');
  });
});
