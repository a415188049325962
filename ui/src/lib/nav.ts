/** The dashboard's main navigation (issue 10), in the order of the top bar. */
export const NAV = [
  { href: '/traces', label: 'Traces' },
  { href: '/sessions', label: 'Sessions' },
  { href: '/runs', label: 'Runs' },
  { href: '/compare/traces', label: 'Compare' },
  { href: '/analytics', label: 'Analytics' },
  { href: '/feedback', label: 'Feedback' },
  { href: '/suites', label: 'Suites' },
  { href: '/prompts', label: 'Prompts' },
  { href: '/agents', label: 'Agents' },
  { href: '/alerts', label: 'Alerts' },
  // API keys and Members (ui/src/lib/components/SettingsTabs.svelte).
  { href: '/settings/keys', label: 'Settings' },
] as const;
