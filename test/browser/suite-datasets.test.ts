import { describe, expect, it, vi } from 'vitest';
import type { SuiteSummary, SuiteVersion } from '../../core/model/suite.js';
import { texts } from '../fixtures/corpus/texts.js';
import { describeErrors } from '../helpers/browser.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { childrenOf, ingestTrace } from '../helpers/ingest-trace.js';
import { startTestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * Datasets from production in Chromium against the real service (issue 31, docs/dashboard.md):
 * "Add to suite" on a trace (previewed, then added with its tool calls) and on a session (one
 * conversation); a suite created, its cases added, changed and removed (a version each) and run
 * against an agent with its progress shown. Screenshots: test-output/screenshots/datasets-*.png.
 */

vi.setConfig({ expect: { poll: { timeout: 20_000, interval: 100 } } });

let agent: TestAgent;
const start = Date.now() - 120_000;

const SUITE_YAML = `name: ui-edited
cases:
  - name: echo hello
    input: hello
    expected: {output: hello}
    scorers: [exactMatch]
`;

function trace(id: string, input: string, output: string, at: number, session?: string) {
  const child = childrenOf(id, start + at);
  return ingestTrace(id, {
    name: 'support-answer',
    start: start + at,
    durationMs: 300,
    attributes: session ? { session_id: session } : undefined,
    root: { span_id: `${id}-root`, name: 'agent', type: 'span', input, output },
    spans: [
      child('lookup', 20, 10, {
        name: 'lookup_order',
        type: 'tool',
        input: '{"order_id": "A-17"}',
        output: 'shipped',
        attributes: { tool_name: 'lookup_order' },
      }),
    ],
  });
}

const { open, call } = dashboardSuite({
  async start() {
    // Echoes its input: a case expecting its own input passes.
    agent = await startTestAgent((req) => ({ json: { output: typeof req.body.input === 'string' ? req.body.input : JSON.stringify(req.body.input) } }));
    return startTestService({ EVAL_RETRY_TIME_SCALE: '0.001' });
  },
  async seed() {
    await call('/api/agents', { method: 'POST', json: { name: 'echo-agent', endpoint: agent.url } }, 201);
    await call('/api/traces/ingest', { method: 'POST', json: trace('ui-ds-1', texts.supportQuestion, texts.supportAnswer, 0) }, 201);
    await call('/api/traces/ingest', { method: 'POST', json: trace('ui-ds-s1', 'first turn', 'first answer', 1000, 'ui-session') }, 201);
    await call('/api/traces/ingest', { method: 'POST', json: trace('ui-ds-s2', 'second turn', 'second answer', 2000, 'ui-session') }, 201);
    await call(
      '/api/suites',
      { method: 'POST', json: { name: 'from-production', cases: [{ name: 'seed', input: 'hi', expected: { output: 'hi' }, scorers: ['exactMatch'] }] } },
      201,
    );
  },
  async after() {
    await agent?.close();
  },
  timeout: 300_000,
});

const suiteNamed = async (name: string) => (await call<{ suites: SuiteSummary[] }>(`/api/suites?name=${name}`)).suites.find((s) => s.name === name)!;
const latest = async (name: string) => call<SuiteVersion>(`/api/suites/${(await suiteNamed(name)).id}`);

describe('datasets from production in Chromium', () => {
  it('adds a trace to a suite from the trace page: previewed, then a new version with the source trace', async () => {
    const p = await open();
    await p.page.goto('/traces/ui-ds-1');
    await p.page.getByTestId('add-to-suite-open').click();
    await p.page.getByTestId('add-to-suite-trajectory').check();
    await p.page.getByTestId('add-to-suite-preview').click();
    const preview = p.page.getByTestId('add-to-suite-previewed');
    await expect.poll(() => preview.textContent()).toContain('lookup_order');
    expect(await preview.textContent()).toContain('support-answer: ui-ds-1');
    await p.screenshot('datasets-trace-preview');
    expect((await latest('from-production')).latest_version).toBe(1);

    await p.page.getByTestId('add-to-suite-add').click();
    await expect.poll(() => p.page.getByTestId('add-to-suite-done').textContent()).toContain('version 2');
    const added = (await latest('from-production')).definition.cases.at(-1)!;
    expect(added).toMatchObject({
      input: texts.supportQuestion,
      expected: { output: texts.supportAnswer, trajectory: { calls: [{ name: 'lookup_order', args: { order_id: 'A-17' } }] } },
      source: { trace_id: 'ui-ds-1' },
    });
    expect(describeErrors(p)).toBe('');
  });

  it('adds a session from the session page as one conversation', async () => {
    const p = await open();
    await p.page.goto('/sessions/ui-session');
    await p.page.getByTestId('add-to-suite-open').click();
    await p.page.getByTestId('add-to-suite-add').click();
    await expect.poll(() => p.page.getByTestId('add-to-suite-done').textContent()).toContain('session: ui-session');
    const c = (await latest('from-production')).definition.cases.at(-1)!;
    expect(c.turns?.map((t) => t.input)).toEqual(['first turn', 'second turn']);
    expect(c.source).toEqual({ trace_id: 'ui-ds-s1', session_id: 'ui-session' });
    await p.screenshot('datasets-session-added');
    expect(describeErrors(p)).toBe('');
  });

  it("adds the traces list's filtered traces as a batch, previewed with its cap", async () => {
    const before = (await latest('from-production')).latest_version;
    const p = await open();
    await p.page.goto('/traces?status=ok');
    await p.page.getByTestId('add-to-suite-open').click();
    await p.page.getByTestId('add-to-suite-cap').fill('2');
    await p.page.getByTestId('add-to-suite-preview').click();
    await expect.poll(() => p.page.getByTestId('add-to-suite-count').textContent()).toContain('2 cases (more traces match: the newest 2 are taken)');
    await p.screenshot('datasets-batch-preview');
    await p.page.getByTestId('add-to-suite-add').click();
    await expect.poll(() => p.page.getByTestId('add-to-suite-done').textContent()).toContain('2 cases');
    const v = await latest('from-production');
    expect(v.latest_version).toBe(before + 1);
    expect(v.definition.cases.slice(-2).map((c) => c.source?.trace_id)).toEqual(['ui-ds-s2', 'ui-ds-s1']);
    expect(describeErrors(p)).toBe('');
  });

  it('creates a suite, adds, changes and removes cases (a version each) and runs it with its progress', async () => {
    const p = await open();
    await p.page.goto('/suites');
    await p.page.getByTestId('suite-new').click();
    await p.page.getByTestId('suite-yaml').fill(SUITE_YAML);
    await p.page.getByTestId('suite-create-form').locator('button[type=submit]').click();
    await p.page.waitForURL(/\/suites\/[0-9a-f-]{36}$/);

    const editor = p.page.getByTestId('suite-case-editor');
    // Added: text with a blank line, emoji and Hebrew, expected as it is (the agent echoes it).
    const text = 'שלום 👋\n\nsecond paragraph';
    await editor.getByTestId('suite-edit-name').fill('echo hebrew');
    await editor.getByTestId('suite-edit-input').fill(text);
    await editor.getByTestId('suite-edit-expected').fill(text);
    await editor.getByTestId('suite-edit-scorers').fill('exactMatch');
    await editor.getByTestId('suite-edit-save').click();
    await expect.poll(() => p.page.getByTestId('suite-edit-saved').textContent()).toContain('version 2');
    expect((await latest('ui-edited')).definition.cases.map((c) => [c.name, c.input])).toEqual([
      ['echo hello', 'hello'],
      ['echo hebrew', text],
    ]);

    // Changed: the first case's expected output.
    await editor.getByTestId('suite-edit-pick').selectOption('echo hello');
    await expect.poll(() => editor.getByTestId('suite-edit-expected').inputValue()).toBe('hello');
    await editor.getByTestId('suite-edit-expected').fill('goodbye');
    await editor.getByTestId('suite-edit-save').click();
    await expect.poll(() => p.page.getByTestId('suite-edit-saved').textContent()).toContain('version 3');
    expect((await latest('ui-edited')).definition.cases[0].expected).toEqual({ output: 'goodbye' });

    // Removed: that case again.
    await editor.getByTestId('suite-edit-pick').selectOption('echo hello');
    await editor.getByTestId('suite-edit-remove').click();
    await expect.poll(() => p.page.getByTestId('suite-edit-saved').textContent()).toContain('version 4');
    const v4 = await latest('ui-edited');
    expect(v4.definition.cases.map((c) => c.name)).toEqual(['echo hebrew']);
    await expect.poll(() => p.page.getByTestId('suite-case').count()).toBe(1);
    await p.screenshot('datasets-suite-edited');

    // Run version 4 against the echo agent and watch it finish.
    const run = p.page.getByTestId('suite-run');
    await expect.poll(() => run.getByTestId('suite-run-agent').inputValue()).not.toBe('');
    await run.getByTestId('suite-run-version').selectOption('4');
    await run.getByTestId('suite-run-start').click();
    await expect.poll(() => run.getByTestId('suite-run-live').getAttribute('data-status'), { timeout: 120_000 }).toBe('completed');
    expect(await run.getByTestId('suite-run-passed').textContent()).toBe('1 of 1 passed');
    expect(await run.getByTestId('run-progress').getAttribute('data-completed')).toBe('1');
    await p.screenshot('datasets-suite-run');
    const runs = await call<{ runs: Array<{ suite_version: number; agent_version: string }> }>(`/api/runs?suite_id=${v4.id}`);
    expect(runs.runs[0]).toMatchObject({ suite_version: 4, agent_version: 'dashboard' });
    expect(agent.requests.some((r) => r.body.input === text)).toBe(true);
    expect(describeErrors(p)).toBe('');
  });
});
