/** The dashboard's pages (issue 10). `built: false` pages show a "not built yet" notice. */
export const NAV = [
  { href: '/traces', label: 'Traces', built: true },
  { href: '/runs', label: 'Runs', built: false },
  { href: '/compare/traces', label: 'Compare', built: false },
  { href: '/analytics', label: 'Analytics', built: false },
  { href: '/feedback', label: 'Feedback', built: false },
  { href: '/suites', label: 'Suites', built: false },
  { href: '/prompts', label: 'Prompts', built: false },
  { href: '/agents', label: 'Agents', built: false },
  { href: '/alerts', label: 'Alerts', built: false },
  { href: '/settings/keys', label: 'API keys', built: true },
] as const;

/** Pages that exist in the plan but not yet in the UI: /runs/{id} and /compare/runs too. */
export function plannedPage(pathname: string): string | null {
  const p = pathname.replace(/\/+$/, '') || '/';
  if (/^\/runs\/[^/]+$/.test(p)) return 'Run detail';
  if (p === '/compare/runs') return 'Compare runs';
  const item = NAV.find((n) => !n.built && n.href === p);
  return item ? item.label : null;
}
