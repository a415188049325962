import { describe, expect, it } from 'vitest';
import { describeErrors } from '../helpers/browser.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { corpusTexts } from '../helpers/corpus.js';
import { ingestTrace, spanAt } from '../helpers/ingest-trace.js';

/**
 * The sessions pages in a real browser (issue 29): the list of conversations with a user filter,
 * and a session read like the conversation (each turn's input and output with their blank lines,
 * opening into its trace), wide and at 420 px, with no console error.
 * Screenshots: test-output/screenshots/sessions-*.png.
 */
const texts = corpusTexts().filter((t) => t.length < 3000);
const ANSWER = texts.find((t) => t.includes('\n\n'))!;

function turn(id: string, startMs: number, sessionAttrs: Record<string, string>, input: string, output: string) {
  return ingestTrace(id, {
    name: 'support-agent',
    start: startMs,
    durationMs: 1500,
    root: { span_id: `${id}-r`, name: 'support-agent', type: 'span', input, output, attributes: sessionAttrs },
    spans: [
      spanAt(startMs, 10, 1390, {
        span_id: `${id}-g`,
        parent_span_id: `${id}-r`,
        name: 'chat gpt-4o',
        type: 'generation',
        model: 'gpt-4o',
        input_tokens: 120,
        output_tokens: 40,
        attributes: {},
      }),
    ],
  });
}

const { open } = dashboardSuite({
  async seed(svc) {
    const now = Date.now() - 60_000;
    const bodies = [
      turn('sess-a-1', now - 50_000, { 'session.id': 'chat-a', 'user.id': 'alice' }, 'Where is my order #1234?', ANSWER),
      turn('sess-a-2', now - 40_000, { 'gen_ai.conversation.id': 'chat-a', 'user.id': 'alice' }, 'Can you send it to Berlin instead?', texts[2]),
      turn('sess-b-1', now - 10_000, { 'langfuse.session.id': 'chat-b', 'langfuse.user.id': 'bob' }, texts[3], texts[4]),
    ];
    for (const body of bodies) {
      const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body });
      expect(res.status, await res.clone().text()).toBe(201);
    }
  },
});

describe('sessions pages', () => {
  it('lists conversations, filters them by user, and reads one turn by turn', async () => {
    const p = await open();
    await p.page.goto('/sessions');
    const rows = p.page.getByTestId('session-row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-session-id')))).toEqual(['chat-b', 'chat-a']);
    expect(await rows.nth(1).textContent()).toContain('alice');
    await p.screenshot('sessions-list');

    await p.page.getByTestId('sessions-user').fill('alice');
    await p.page.getByRole('button', { name: 'Filter' }).click();
    await p.page.waitForURL((url) => url.searchParams.get('user_id') === 'alice');
    await expect.poll(() => rows.count()).toBe(1);

    await rows.first().getByRole('link').click();
    await p.page.waitForURL((url) => url.pathname === '/sessions/chat-a');
    const turns = p.page.getByTestId('session-turn');
    await expect.poll(() => turns.count()).toBe(2);
    expect(await turns.evaluateAll((els) => els.map((e) => e.getAttribute('data-trace-id')))).toEqual(['sess-a-1', 'sess-a-2']);
    expect(await p.page.getByTestId('session-facts').textContent()).toContain('alice');
    expect(await turns.first().getByTestId('session-turn-input').textContent()).toContain('Where is my order #1234?');
    // The answer as written, its blank lines kept.
    const answer = await turns.first().getByTestId('session-turn-output').innerText();
    expect(answer).toContain(ANSWER.split('\n\n')[0]);
    expect(answer).toContain('\n\n');
    await p.screenshot('sessions-conversation');

    await turns.nth(1).getByTestId('session-turn-trace').click();
    await p.page.waitForURL((url) => url.pathname === '/traces/sess-a-2');
    expect(describeErrors(p)).toBe('');
  });

  it('fits a narrow window and says what is missing', async () => {
    const p = await open({ viewport: { width: 420, height: 900 } });
    await p.page.goto('/sessions/chat-a');
    await expect.poll(() => p.page.getByTestId('session-turn').count()).toBe(2);
    const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await p.screenshot('sessions-conversation-narrow');

    await p.page.goto('/sessions/no-such-session');
    await expect.poll(() => p.page.getByTestId('session-error').count()).toBe(1);
    expect(await p.page.getByTestId('session-error').textContent()).toContain("Session with ID 'no-such-session' not found");
  });
});
