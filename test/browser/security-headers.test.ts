import { describe, expect, it } from 'vitest';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { nestedAgentTrace, SEL } from '../helpers/dashboard.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { NAV } from '../../ui/src/lib/nav.js';

/**
 * The dashboard under its Content-Security-Policy (docs/security.md, "Security headers"), in
 * Chromium against the real service: the sign-in page, every page of the navigation and a trace's
 * waterfall (bars placed with inline styles) load and render with no `securitypolicyviolation`
 * event and no console error (a blocked script or style is reported there too).
 */
const TRACE = 'csp-trace';

interface Violation {
  directive: string;
  blocked: string;
  source: string;
}

/** A page that records every CSP violation in `window.__cspViolations` from before any script of the page runs. */
async function open(signedIn: boolean): Promise<WatchedPage> {
  const p = await openDashboard({ signedIn });
  await p.page.addInitScript(() => {
    const seen: Violation[] = [];
    (window as unknown as { __cspViolations: Violation[] }).__cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push({ directive: e.violatedDirective, blocked: e.blockedURI, source: `${e.sourceFile}:${e.lineNumber}` }),
    );
  });
  return p;
}

const violations = (p: WatchedPage) => p.page.evaluate(() => (window as unknown as { __cspViolations: Violation[] }).__cspViolations);

const { svc, open: openDashboard } = dashboardSuite({
  async seed() {
    const res = await svc.api('/api/traces/ingest', { method: 'POST', json: nestedAgentTrace(TRACE, 40) });
    expect(res.status, await res.clone().text()).toBe(201);
  },
});

describe('the dashboard under its CSP', () => {
  it('serves the sign-in page with the strict policy and signs in without a violation', async () => {
    const p = await open(false);
    const res = await p.page.goto('/signin');
    const csp = (await res!.allHeaders())['content-security-policy'];
    expect(csp).toMatch(/script-src 'self' 'sha256-[^']+'/);
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("frame-ancestors 'none'");
    await p.page.getByLabel('API key').fill(svc.apiKey!);
    await p.page.getByRole('button', { name: 'Sign in' }).click();
    await p.page.waitForURL((url) => url.pathname === '/traces');
    await expect.poll(() => p.page.locator(SEL.traceRowOf(TRACE)).count()).toBe(1);
    expect(await violations(p)).toEqual([]);
    expect(describeErrors(p)).toBe('');
  });

  it('renders every page of the navigation and a waterfall with no violation and no console error', async () => {
    const p = await open(true);
    for (const href of [...NAV.map((item) => item.href), `/traces/${TRACE}`]) {
      await p.page.goto(href);
      await expect.poll(() => p.page.locator('main h1').first().isVisible(), { timeout: 20_000 }).toBe(true);
      await expect.poll(() => p.page.locator('main .spinner').count(), { timeout: 20_000 }).toBe(0);
      expect(await violations(p), href).toEqual([]);
    }
    await expect.poll(() => p.page.locator(SEL.waterfallRow).count()).toBeGreaterThan(0);
    // The waterfall's bars got their inline widths (style-src allows Svelte's style attributes).
    const width = await p.page
      .locator('.bar')
      .first()
      .evaluate((el) => (el as HTMLElement).style.width);
    expect(width).toMatch(/%$/);
    await p.screenshot('security-headers-waterfall');
    expect(describeErrors(p)).toBe('');
  });

  it('is enforced: an injected inline script does not run and is reported as a violation', async () => {
    const p = await open(false);
    await p.page.goto('/signin');
    await expect.poll(() => p.page.getByLabel('API key').isVisible()).toBe(true);
    const ran = await p.page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__injected = true;';
      document.head.append(script);
      return (window as unknown as { __injected?: boolean }).__injected === true;
    });
    expect(ran).toBe(false);
    await expect.poll(async () => (await violations(p)).map((v) => v.directive)).toEqual(['script-src-elem']);
  });
});
