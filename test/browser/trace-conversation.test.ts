import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { describe, expect, it } from 'vitest';
import { exportSpans } from '../fixtures/otlp/sdk.js';
import { loadFixture, specFromFixture } from '../e2e/helpers/fixtures.js';
import { recordTrace, type RecordedTrace } from '../e2e/helpers/otel.js';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';

/**
 * The trace page shows a generation's conversation as the API reads it for every convention:
 * an OpenInference LLM span exported by the real OTel SDK (an assistant turn that is only a tool
 * call, the tool result answering it, a multi-paragraph markdown answer) and a GenAI span whose
 * answer is longer than the trace view shows. Real Chromium against the real service.
 * Screenshots: test-output/screenshots/trace-conversation-*.png.
 */
let rec: RecordedTrace;

const LONG_END = 'THE VERY END OF THE LONG ANSWER';
const longAnswer = `${'A paragraph of the long answer, line after line.\n\n'.repeat(600)}${LONG_END}`;

const { svc, open: openDashboard } = dashboardSuite({
  timeout: 600_000,
  async seed() {
    const agent = loadFixture('openinference/agent-with-totals');
    const llm = loadFixture('openinference/llm-tool-call-conversation');
    const genai = loadFixture('genai/chat-tool-call-messages');
    const longOutput = JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: longAnswer }], finish_reason: 'stop' }]);
    rec = await recordTrace(agent.resource, [
      specFromFixture(agent, { key: 'agent', start: 0 }),
      specFromFixture(llm, { key: 'llm', parent: 'agent', start: 100 }),
      specFromFixture(genai, { key: 'long', parent: 'agent', start: 2100, attributes: { 'gen_ai.output.messages': longOutput } }),
    ]);
    // As an application exports: OTLP/HTTP protobuf to the API port, with its key.
    const exporter = new OTLPTraceExporter({ url: `${svc.apiUrl}/v1/traces`, headers: { 'x-api-key': svc.apiKey!, 'x-project-id': svc.defaultProjectId } });
    const result = await exportSpans(exporter, rec.spans);
    await exporter.shutdown();
    expect(result.error?.message ?? '').toBe('');
  },
});

async function open(spanKey: string): Promise<WatchedPage> {
  const p = await openDashboard({ viewport: { width: 1400, height: 1000 } });
  await p.page.goto(`/traces/${rec.traceId}?span=${rec.ids[spanKey]}`);
  await p.page.getByTestId('llm-conversation').waitFor({ timeout: 15_000 });
  return p;
}

describe('trace page: a generation as a conversation', () => {
  it('OpenInference: the tool call (name, arguments) in the assistant turn, the result linked to it, the answer with its blank lines', async () => {
    const p = await open('llm');
    const input = p.page.getByTestId('llm-input');
    const messages = input.getByTestId('llm-message');
    expect(await messages.evaluateAll((els) => els.map((e) => e.getAttribute('data-role')))).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'tool',
    ]);

    // The assistant turn whose only content is a tool call shows the call, not an empty bubble.
    const callTurn = messages.nth(4);
    const call = callTurn.getByTestId('llm-tool-call');
    expect(await call.getByTestId('llm-tool-call-name').textContent()).toBe('get_weather');
    expect(await call.getAttribute('data-tool-call-id')).toBe('call_W1');
    expect(await call.getByTestId('llm-tool-call-arguments').textContent()).toBe('{\n  "city": "Paris",\n  "unit": "celsius"\n}');
    expect(await callTurn.textContent()).not.toContain('(no text)');

    // The tool result names the call it answers; its link leads to the call.
    const result = messages.nth(5);
    expect(await result.getByTestId('llm-tool-result').textContent()).toMatch(/Result of\s+get_weather\s+call_W1/);
    expect(await result.textContent()).toContain('{"temperature":14,"conditions":"rain"}');
    await result.getByTestId('llm-tool-result-link').click();
    await expect.poll(() => call.evaluate((el) => el.classList.contains('flash'))).toBe(true);

    // The answer is markdown: rendered (a list, a code block), sanitized (ui/src/lib/markdown.ts).
    const markdown = p.page.getByTestId('llm-output').getByTestId('llm-message').getByTestId('markdown').first();
    const rendered = markdown.getByTestId('markdown-rendered');
    await expect.poll(() => rendered.locator('li').allTextContents()).toContain('Dry tomorrow morning 🌤️');
    expect(await rendered.locator('pre code').count()).toBeGreaterThanOrEqual(1);
    await p.screenshot('trace-conversation-markdown');
    // Raw: kept as written, blank lines visible (pre-wrap), the emoji and the code fence.
    await markdown.getByTestId('markdown-raw').click();
    const answer = markdown.locator('pre').first();
    expect(await answer.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('pre-wrap');
    const shown = await answer.innerText();
    expect(shown).toContain('in Paris right now.\n\nYes, pack an umbrella ☔ and a light jacket:\n\n```json');
    expect(shown).toContain('- Dry tomorrow morning 🌤️');
    // Two lines of text with a blank line between are three line-heights tall, not two.
    const lines = await answer.evaluate((el) => Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight)));
    expect(lines).toBeGreaterThanOrEqual(9);
    expect(await p.page.getByTestId('llm-output').getByTestId('llm-message-finish').textContent()).toBe('stop');
    expect(await p.page.getByTestId('llm-finish-reasons').textContent()).toContain('stop');

    // Parameters and tools start folded, and open.
    const parameters = p.page.getByTestId('llm-parameters');
    expect(await parameters.getAttribute('open')).toBeNull();
    await parameters.locator('summary').click();
    await expect.poll(() => parameters.textContent()).toContain('temperature');
    expect(await parameters.textContent()).toContain('0.2');
    expect(await parameters.textContent()).toContain('tool_choice');
    const tools = p.page.getByTestId('llm-tools');
    await tools.locator('summary').first().click();
    const tool = tools.getByTestId('llm-tool');
    expect(await tool.textContent()).toContain('get_weather');
    expect(await tool.textContent()).toContain('Current weather for a city');
    await tool.locator('summary').first().click();
    await expect.poll(() => tool.textContent()).toContain('celsius');
    await p.page
      .getByTestId('span-detail')
      .locator('header')
      .evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await p.screenshot('trace-conversation-openinference-top');

    await answer.scrollIntoViewIfNeeded();
    await p.screenshot('trace-conversation-openinference');
    expect(describeErrors(p)).toBe('');
  });

  it('an answer longer than the trace view shows: the page fetches the whole span and shows all of it', async () => {
    const p = await open('long');
    const answer = p.page.getByTestId('llm-output').getByTestId('llm-message');
    // Cut in the trace view (the stored output is gen_ai.output.messages itself), then whole.
    await expect.poll(() => answer.getByTestId('folded-text').count()).toBe(1);
    await expect.poll(async () => (await answer.getByTestId('folded-toggle').textContent()) ?? '').toMatch(/Show all/);
    await answer.getByTestId('folded-toggle').click();
    await expect.poll(() => answer.locator('pre').first().textContent()).toContain(LONG_END);
    expect((await answer.locator('pre').first().textContent())!.startsWith('A paragraph of the long answer')).toBe(true);
    // The prompt of the same span, with its tool call.
    expect(await p.page.getByTestId('llm-input').getByTestId('llm-tool-call-name').textContent()).toBe('get_weather');
    await answer
      .locator('pre')
      .first()
      .evaluate((el) => el.scrollIntoView({ block: 'end' }));
    await p.screenshot('trace-conversation-long-answer');
    expect(describeErrors(p)).toBe('');
  });
});
