import { describe, expect, it } from 'vitest';
import type { Agent } from '../../core/model/agent.js';
import type { AlertEventList, AlertRule, AlertRuleList } from '../../core/model/alert.js';
import type { SuiteSummary } from '../../core/model/suite.js';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { CATALOG, errorsExcept, PAGE_OVERFLOWS_X, suiteBody } from '../helpers/dashboard-catalog.js';
import { eventually } from '../helpers/eventually.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { sampleTrace } from '../helpers/server.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';
import { postSuite } from '../helpers/suite-api.js';

/**
 * The catalog pages in Chromium against the real service (chDB, PostgreSQL, credentials
 * required, the alert evaluator ticking every 200 ms): suites with two versions, agents
 * registered and deleted from the UI, alert rules created from the UI and the events the
 * evaluator records for them. Screenshots: test-output/screenshots/catalog-*.png.
 */
let viewerKey: string;
let weather: SuiteSummary;
let apiRule: AlertRule;

const EMPTY_PROJECT = 'catalog-empty';
const NARROW = { width: 420, height: 900 };

const texts = (p: WatchedPage, selector: string) => p.page.locator(selector).allTextContents();

const { svc, open } = dashboardSuite({
  env: { ALERT_TICK_MS: '200' },
  async seed() {
    const viewer = await json<{ key: string }>(
      await svc.api(`/api/projects/${svc.defaultProjectId}/keys`, { method: 'POST', json: { name: 'catalog viewer', role: 'viewer' } }),
      201,
    );
    viewerKey = viewer.key;

    await json(
      await svc.api('/api/agents', {
        method: 'POST',
        json: { name: 'catalog-bot', endpoint: 'http://127.0.0.1:9/agent', headers: { Authorization: 'Bearer secret-value' } },
      }),
      201,
    );
    weather = await postSuite<SuiteSummary>(svc, suiteBody('catalog-weather', 'v1 case', 2, { agent_id: 'catalog-bot' }));
    weather = await json<SuiteSummary>(
      await svc.api(`/api/suites/${weather.id}`, { method: 'PUT', json: suiteBody('catalog-weather', 'v2 case', 3, { agent_id: 'catalog-bot' }) }),
      200,
    );
    await postSuite(svc, suiteBody('catalog-refunds', 'refund', 1));

    // Traces in the last minute: a rule "trace count > 0 over 5 min" fires at its first evaluation.
    for (let i = 0; i < 3; i++) {
      await json(
        await svc.api('/api/traces/ingest', {
          method: 'POST',
          json: sampleTrace(`catalog-t${i}`, { start: Date.now() - 20_000 - i * 1000, name: 'catalog-run' }),
        }),
        201,
      );
    }
    apiRule = await json<AlertRule>(
      await svc.api('/api/alerts/rules', {
        method: 'POST',
        json: { name: 'API trace volume', metric: 'trace_count', operator: 'gt', threshold: 0, severity: 'warning', eval_interval_seconds: 1 },
      }),
      201,
    );
    await eventually(async () => {
      const { events } = await json<AlertEventList>(await svc.api(`/api/alerts/events?rule_id=${apiRule.id}`), 200);
      expect(events.map((e) => e.kind)).toContain('fired');
    }, 20_000);
  },
});

describe('suites pages', () => {
  it('lists the suites with their latest version, case count and agent, and filters by name in the URL', async () => {
    const p = await open();
    await p.page.goto('/suites');
    await expect.poll(() => p.page.locator(CATALOG.suiteRow).count()).toBe(2);
    const row = p.page.locator(CATALOG.suiteRowNamed('catalog-weather'));
    expect(await row.getByTestId('suite-version').textContent()).toBe('v2');
    expect(await row.getByTestId('suite-case-count').textContent()).toBe('3');
    // Agent names load after the suites (the column shows the agent's id until then).
    await expect.poll(() => row.textContent()).toContain('catalog-bot');
    await p.screenshot('catalog-suites');

    await p.page.getByLabel('Name').fill('refund');
    await p.page.getByRole('button', { name: 'Search' }).click();
    await p.page.waitForURL(/[?&]name=refund/);
    await expect.poll(() => p.page.locator(CATALOG.suiteRow).count()).toBe(1);
    expect(await p.page.locator(CATALOG.suiteRowNamed('catalog-refunds')).count()).toBe(1);
    await p.page.reload();
    await expect.poll(() => p.page.locator(CATALOG.suiteRow).count()).toBe(1);
    expect(await p.page.getByLabel('Name').inputValue()).toBe('refund');
    expect(describeErrors(p)).toBe('');
  });

  it("shows a suite's cases, default scorers and versions; picking version 1 shows its cases", async () => {
    const p = await open();
    await p.page.goto('/suites');
    await p.page.locator(CATALOG.suiteRowNamed('catalog-weather')).getByRole('link', { name: 'catalog-weather' }).click();
    await p.page.waitForURL(new RegExp(`/suites/${weather.id}$`));
    await expect.poll(() => texts(p, `${CATALOG.suiteCase} td:first-child`)).toEqual(['v2 case 1', 'v2 case 2', 'v2 case 3']);
    expect(await p.page.getByTestId('suite-default-scorers').textContent()).toContain('latency {"maxMs":5000}');
    expect(await p.page.locator(CATALOG.suiteCaseNamed('v2 case 2')).textContent()).toContain('contains');
    expect(await p.page.locator(CATALOG.suiteVersionRow).count()).toBe(2);
    expect(await p.page.getByTestId('suite-runs-link').getAttribute('href')).toBe(`/runs?suite=${weather.id}`);
    // The long input is folded under a preview; opening it shows the whole text.
    const folded = p.page.locator(CATALOG.suiteCaseNamed('v2 case 1')).locator('details').first();
    expect(await folded.getAttribute('open')).toBeNull();
    await folded.locator('summary').click();
    await expect.poll(() => folded.locator('pre').textContent()).toContain('Please answer with the forecast and the temperature.');
    await p.screenshot('catalog-suite');

    await p.page.getByTestId('suite-version-picker').selectOption('1');
    await p.page.waitForURL(/[?&]version=1/);
    await expect.poll(() => texts(p, `${CATALOG.suiteCase} td:first-child`)).toEqual(['v1 case 1', 'v1 case 2']);
    expect(await p.page.getByTestId('suite-old-version').textContent()).toContain('the latest is version 2');
    await p.screenshot('catalog-suite-v1');
    // The URL alone opens that version.
    await p.page.reload();
    await expect.poll(() => texts(p, `${CATALOG.suiteCase} td:first-child`)).toEqual(['v1 case 1', 'v1 case 2']);
    expect(await p.page.getByTestId('suite-version-picker').inputValue()).toBe('1');
    expect(describeErrors(p)).toBe('');
  });

  it('shows how to create a suite in an empty project, refuses a bad YAML suite field by field, and creates one from YAML', async () => {
    const key = await svc.keyFor(EMPTY_PROJECT);
    const p = await open({ apiKey: key, project: EMPTY_PROJECT });
    await p.page.goto('/suites');
    await expect.poll(() => p.page.locator(CATALOG.suitesEmpty).count()).toBe(1);
    expect(await p.page.getByTestId('suite-yaml-example').textContent()).toContain('name: weather-agent');
    const curl = await p.page.getByTestId('suite-curl').textContent();
    expect(curl).toContain(`curl -X POST ${svc.apiUrl}/api/suites`);
    expect(curl).toContain(`x-project-id: ${EMPTY_PROJECT}`);
    expect(curl).toContain('content-type: application/yaml');
    await p.screenshot('catalog-suites-empty');

    await p.page.getByTestId('suite-use-example').click();
    const textarea = p.page.getByTestId('suite-yaml');
    expect(await textarea.inputValue()).toContain('name: weather-agent');
    // An unknown scorer and a repeated case name: each refused field is named.
    await textarea.fill('name: broken\nscorers: [nosuchscorer]\ncases:\n  - {name: a, input: 1}\n  - {name: a, input: 2}\n');
    await p.page.getByTestId('suite-create').click();
    await expect.poll(() => p.page.locator(CATALOG.suiteFieldError).count()).toBeGreaterThanOrEqual(2);
    const fields = await p.page.locator(CATALOG.suiteFieldError).evaluateAll((els) => els.map((e) => e.getAttribute('data-field')));
    expect(fields).toContain('defaultScorers[0]');
    expect(fields).toContain('cases[1].name');
    expect(await p.page.getByTestId('suite-create-error').textContent()).toContain('fix the fields below');
    await p.screenshot('catalog-suite-create-errors');

    await p.page.getByTestId('suite-create-form').getByRole('button', { name: 'Cancel' }).click();
    await p.page.getByTestId('suite-use-example').click();
    await p.page.getByTestId('suite-create').click();
    await p.page.waitForURL(/\/suites\/[0-9a-f-]{36}$/);
    await expect.poll(() => texts(p, `${CATALOG.suiteCase} td:first-child`)).toEqual(['paris today', 'refuses stock tips']);
    const list = await json<{ suites: SuiteSummary[] }>(await svc.api('/api/suites', { project: EMPTY_PROJECT }), 200);
    expect(list.suites.map((s) => s.name)).toEqual(['weather-agent']);
    // Chromium logs the refused POST (422); nothing else.
    expect(errorsExcept(p, [{ status: 422, path: '/api/suites' }])).toBe('');
  });
});

describe('agents page', () => {
  it('registers an agent from the UI, refuses a taken name with a 409 in words, and deletes it after asking', async () => {
    const p = await open();
    await p.page.goto('/agents');
    await expect.poll(() => p.page.locator(CATALOG.agentRowNamed('catalog-bot')).count()).toBe(1);
    await p.page.getByTestId('agent-name').fill('ui-bot');
    await p.page.getByTestId('agent-endpoint').fill('https://agents.example.com/ui-bot');
    await p.page.getByTestId('agent-description').fill('Registered from the dashboard');
    await p.page.getByTestId('agent-header-add').click();
    await p.page.getByTestId('agent-header-name').fill('x-tenant');
    await p.page.getByTestId('agent-header-value').fill('acme-secret');
    await p.page.getByTestId('agent-create').click();
    const row = p.page.locator(CATALOG.agentRowNamed('ui-bot'));
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('https://agents.example.com/ui-bot');
    expect(await row.textContent()).toContain('x-tenant');
    expect(await p.page.locator('body').textContent()).not.toContain('acme-secret');
    const viaApi = await json<Agent>(await svc.api('/api/agents/ui-bot'), 200);
    expect(viaApi).toMatchObject({ endpoint: 'https://agents.example.com/ui-bot', description: 'Registered from the dashboard', header_names: ['x-tenant'] });
    await p.screenshot('catalog-agents');

    // The same name again: the API's 409, said in words.
    await p.page.getByTestId('agent-name').fill('ui-bot');
    await p.page.getByTestId('agent-endpoint').fill('https://agents.example.com/other');
    await p.page.getByTestId('agent-create').click();
    await expect.poll(() => p.page.getByTestId('agent-form-error').textContent()).toContain("An agent named 'ui-bot' already exists in this project");
    expect(await p.page.getByTestId('agent-form-error').textContent()).toContain('Choose another name');
    await p.screenshot('catalog-agents-409');

    // A name that looks like an id: the 422 is shown next to the name field.
    await p.page.getByTestId('agent-name').fill('00000000-0000-4000-8000-000000000000');
    await p.page.getByTestId('agent-create').click();
    await expect.poll(() => p.page.locator('[data-testid="agent-field-error"][data-field="name"]').textContent()).toContain('must not be a UUID');

    await row.getByTestId('agent-delete').click();
    expect(await row.textContent()).toContain('Delete "ui-bot"?');
    await row.getByTestId('agent-delete-confirm').click();
    await expect.poll(() => row.count()).toBe(0);
    expect((await svc.api('/api/agents/ui-bot')).status).toBe(404);
    expect(await p.page.getByTestId('agents-notice').textContent()).toContain('Agent "ui-bot" deleted.');
    expect(
      errorsExcept(p, [
        { status: 409, path: '/api/agents' },
        { status: 422, path: '/api/agents' },
      ]),
    ).toBe('');
  });

  it('tells a viewer key in words that it cannot register agents', async () => {
    const p = await open({ apiKey: viewerKey });
    await p.page.goto('/agents');
    await expect.poll(() => p.page.locator(CATALOG.agentRowNamed('catalog-bot')).count()).toBe(1);
    await p.page.getByTestId('agent-name').fill('viewer-bot');
    await p.page.getByTestId('agent-endpoint').fill('https://agents.example.com/viewer');
    await p.page.getByTestId('agent-create').click();
    await expect.poll(() => p.page.getByTestId('agent-form-error').textContent()).toContain('Your key cannot register agents');
    expect(await p.page.getByTestId('agent-form-error').textContent()).toContain('A viewer key only reads');
    expect((await svc.api('/api/agents/viewer-bot')).status).toBe(404);
    expect(errorsExcept(p, [{ status: 403, path: '/api/agents' }])).toBe('');
  });
});

describe('alerts page', () => {
  it('shows rules with their state and the events the evaluator recorded, newest first, filtered in the URL', async () => {
    const p = await open();
    await p.page.goto('/alerts');
    const row = p.page.locator(CATALOG.ruleRowNamed('API trace volume'));
    await expect.poll(() => row.count()).toBe(1);
    await expect.poll(() => row.getByTestId('rule-state').textContent()).toBe('Firing');
    expect(await row.getByTestId('rule-condition').textContent()).toBe('Trace count > 0');
    await expect.poll(() => p.page.locator(`${CATALOG.eventRowOfRule(apiRule.id)}[data-kind="fired"]`).count()).toBeGreaterThanOrEqual(1);
    expect(await p.page.locator(CATALOG.eventRowOfRule(apiRule.id)).first().textContent()).toContain('API trace volume');
    await p.screenshot('catalog-alerts');

    await p.page.getByTestId('events-filter-kind').selectOption('resolved');
    await p.page.waitForURL(/[?&]kind=resolved/);
    await expect.poll(() => p.page.getByTestId('events-empty').count()).toBe(1);
    await p.page.getByTestId('events-filter-kind').selectOption('fired');
    await p.page.waitForURL(/[?&]kind=fired/);
    await expect.poll(() => p.page.locator(CATALOG.eventRow).count()).toBeGreaterThanOrEqual(1);
    await p.page.reload();
    await expect.poll(() => p.page.locator(CATALOG.eventRow).count()).toBeGreaterThanOrEqual(1);
    expect(await p.page.getByTestId('events-filter-kind').inputValue()).toBe('fired');
    expect(describeErrors(p)).toBe('');
  });

  it('creates a rule from the UI, sees it fire, disables it and deletes it', async () => {
    const p = await open();
    await p.page.goto('/alerts');
    await expect.poll(() => p.page.locator(CATALOG.ruleRow).count()).toBeGreaterThanOrEqual(1);
    await p.page.getByTestId('alert-new').click();

    // Score drift without a score name: the API's 422 is shown next to the filter field.
    await p.page.getByTestId('alert-name').fill('UI score drift');
    await p.page.getByTestId('alert-metric').selectOption('drift');
    await p.page.getByTestId('alert-create').click();
    await expect
      .poll(() => p.page.locator('[data-testid="alert-field-error"][data-field="filter.score_name"]').textContent())
      .toContain('is required for metric drift');
    await p.screenshot('catalog-alerts-form-errors');

    await p.page.getByTestId('alert-name').fill('UI trace volume');
    await p.page.getByTestId('alert-metric').selectOption('trace_count');
    await p.page.getByTestId('alert-operator').selectOption('gt');
    await p.page.getByTestId('alert-threshold').fill('0');
    await p.page.getByTestId('alert-severity').selectOption('critical');
    await p.page.getByTestId('alert-filter-trace_name').fill('catalog');
    await p.page.getByTestId('alert-interval').fill('1');
    expect(await p.page.getByTestId('alert-preview').textContent()).toContain('Trace count > 0 over the last 5 min, checked every 1 s');
    await p.page.getByTestId('alert-create').click();

    const row = p.page.locator(CATALOG.ruleRowNamed('UI trace volume'));
    await expect.poll(() => row.count()).toBe(1);
    const { rules } = await json<AlertRuleList>(await svc.api('/api/alerts/rules'), 200);
    const made = rules.find((r) => r.name === 'UI trace volume');
    expect(made).toMatchObject({
      metric: 'trace_count',
      operator: 'gt',
      threshold: 0,
      severity: 'critical',
      filter: { trace_name: 'catalog' },
      eval_interval_seconds: 1,
      window_seconds: 300,
      enabled: true,
    });
    // The evaluator fires it; the page polls and shows the state and the event.
    await expect.poll(() => row.getByTestId('rule-state').textContent(), { timeout: 30_000 }).toBe('Firing');
    await expect.poll(() => p.page.locator(CATALOG.eventRowOfRule(made!.id)).count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    expect(await row.getByTestId('rule-last-value').textContent()).toBe('value 3');
    await p.screenshot('catalog-alerts-created');

    // Only this rule's events, by the link in its row.
    await row.getByTestId('rule-events-link').click();
    await p.page.waitForURL(new RegExp(`[?&]rule=${made!.id}`));
    await expect
      .poll(async () => new Set(await p.page.locator(CATALOG.eventRow).evaluateAll((els) => els.map((e) => e.getAttribute('data-rule-id')))))
      .toEqual(new Set([made!.id]));

    await row.getByTestId('rule-toggle').click();
    await expect.poll(() => row.getAttribute('data-enabled')).toBe('false');
    expect((await json<AlertRule>(await svc.api(`/api/alerts/rules/${made!.id}`), 200)).enabled).toBe(false);
    expect(await row.getByTestId('rule-state').textContent()).toBe('Disabled');

    await row.getByTestId('rule-delete').click();
    await row.getByTestId('rule-delete-confirm').click();
    await expect.poll(() => row.count()).toBe(0);
    expect((await svc.api(`/api/alerts/rules/${made!.id}`)).status).toBe(404);
    expect(errorsExcept(p, [{ status: 422, path: '/api/alerts/rules' }])).toBe('');
  });
});

describe('empty agents and alerts pages', () => {
  it('say how to register an agent and create a rule, with the curl command for this service', async () => {
    const key = await svc.keyFor(EMPTY_PROJECT);
    const p = await open({ apiKey: key, project: EMPTY_PROJECT });
    await p.page.goto('/agents');
    await expect.poll(() => p.page.getByTestId('agents-empty').count()).toBe(1);
    const agentsCurl = await p.page.getByTestId('agents-curl').textContent();
    expect(agentsCurl).toContain(`curl -X POST ${svc.apiUrl}/api/agents`);
    expect(agentsCurl).toContain(`x-project-id: ${EMPTY_PROJECT}`);
    await p.screenshot('catalog-agents-empty');

    await p.page.goto('/alerts');
    await expect.poll(() => p.page.getByTestId('alerts-empty').count()).toBe(1);
    expect(await p.page.getByTestId('alerts-curl').textContent()).toContain(`curl -X POST ${svc.apiUrl}/api/alerts/rules`);
    await expect.poll(() => p.page.getByTestId('events-empty').textContent()).toContain('No events yet');
    await p.screenshot('catalog-alerts-empty');
    expect(describeErrors(p)).toBe('');
  });
});

describe('catalog pages on a narrow window', () => {
  it('keeps each page inside a 420 px window: tables scroll in their wrappers', async () => {
    const p = await open({ viewport: NARROW });
    const shots: Array<[string, string, string]> = [
      ['/suites', CATALOG.suiteRow, 'catalog-suites-narrow'],
      [`/suites/${weather.id}`, CATALOG.suiteCase, 'catalog-suite-narrow'],
      ['/agents', CATALOG.agentRow, 'catalog-agents-narrow'],
      ['/alerts', CATALOG.ruleRow, 'catalog-alerts-narrow'],
    ];
    for (const [path, selector, name] of shots) {
      await p.page.goto(path);
      await expect.poll(() => p.page.locator(selector).count()).toBeGreaterThanOrEqual(1);
      await p.screenshot(name);
      expect(await p.page.evaluate(PAGE_OVERFLOWS_X), `${path} scrolls sideways as a whole`).toBe(false);
    }
    expect(describeErrors(p)).toBe('');
  });
});
