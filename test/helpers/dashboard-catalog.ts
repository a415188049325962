/**
 * Selectors and data for the browser tests of the catalog pages (/suites, /agents, /alerts):
 * the `data-testid`s those pages carry (docs/dashboard.md "Test ids").
 */

const tid = (id: string) => `[data-testid="${id}"]`;

export const CATALOG = {
  suiteRow: tid('suite-row'),
  suiteRowNamed: (name: string) => `${tid('suite-row')}[data-suite-name="${name}"]`,
  suitesEmpty: tid('suites-empty'),
  suiteCase: tid('suite-case'),
  suiteCaseNamed: (name: string) => `${tid('suite-case')}[data-case-name="${name}"]`,
  suiteVersionRow: tid('suite-version-row'),
  suiteFieldError: tid('suite-field-error'),
  agentRow: tid('agent-row'),
  agentRowNamed: (name: string) => `${tid('agent-row')}[data-agent-name="${name}"]`,
  ruleRow: tid('rule-row'),
  ruleRowNamed: (name: string) => `${tid('rule-row')}[data-rule-name="${name}"]`,
  eventRow: tid('event-row'),
  eventRowOfRule: (ruleId: string) => `${tid('event-row')}[data-rule-id="${ruleId}"]`,
} as const;

/** A suite body (JSON) whose cases are named `${prefix} 1..n`; the first case's input is long, to be folded. */
export function suiteBody(name: string, prefix: string, cases: number, extra: Record<string, unknown> = {}) {
  return {
    name,
    description: `Weather questions (${prefix})`,
    defaultScorers: ['contains', { name: 'latency', config: { maxMs: 5000 } }],
    defaultMinScore: 0.8,
    cases: Array.from({ length: cases }, (_, i) => ({
      name: `${prefix} ${i + 1}`,
      input:
        i === 0
          ? { query: `What is the weather in Paris today? ${'Please answer with the forecast and the temperature. '.repeat(6)}` }
          : { query: `city ${i + 1}` },
      expected: { outputContains: [`answer ${i + 1}`] },
      ...(i === 1 ? { scorers: ['contains'], minScore: 0.5 } : {}),
    })),
    ...extra,
  };
}

/** Whether the page scrolls sideways as a whole (a table should scroll inside its wrapper instead). */
export const PAGE_OVERFLOWS_X = 'document.documentElement.scrollWidth > window.innerWidth + 1';

/**
 * The page's recorded errors but the console lines Chromium writes for API answers a test asked
 * for on purpose ("Failed to load resource: the server responded with a status of 409"), each
 * given as the status and the API path it came from. Anything else stays an error.
 */
export function errorsExcept(p: { errors: string[] }, expected: Array<{ status: number; path: string }>): string {
  return p.errors
    .filter(
      (e) =>
        !expected.some(
          ({ status, path }) =>
            e.includes(`status of ${status}`) && new RegExp(`console\\.error at https?://[^/]+${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[?:]`).test(e),
        ),
    )
    .join('\n---\n');
}
