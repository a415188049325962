/** The dashboard's pages (issue 10). `built: false` pages show a "not built yet" notice. */
export const NAV = [
  { href: '/traces', label: 'Traces', built: true },
  { href: '/runs', label: 'Runs', built: true },
  { href: '/compare/traces', label: 'Compare', built: true },
  { href: '/analytics', label: 'Analytics', built: true },
  { href: '/feedback', label: 'Feedback', built: true },
  { href: '/suites', label: 'Suites', built: true },
  { href: '/prompts', label: 'Prompts', built: true },
  { href: '/agents', label: 'Agents', built: true },
  { href: '/alerts', label: 'Alerts', built: true },
  { href: '/settings/keys', label: 'API keys', built: true },
] as const;

/** Pages that exist in the plan but not yet in the UI. */
export function plannedPage(pathname: string): string | null {
  const p = pathname.replace(/\/+$/, '') || '/';
  const item = NAV.find((n) => !n.built && n.href === p);
  return item ? item.label : null;
}
