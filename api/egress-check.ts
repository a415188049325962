import { ValidationError, type FieldIssue } from '../core/errors.js';
import type { ApiDeps } from './deps.js';

/**
 * Refuses with a 422 naming the field a URL a user registers (an agent's or a custom scorer's
 * `endpoint`, an alert rule's `webhook_url`) whose host is a literal address the egress policy
 * refuses: "points to a loopback address (127.0.0.1), which EGRESS_ALLOW does not allow". Host
 * names are judged when called, by the addresses they resolve to then (docs/security.md, "Egress").
 */
export async function assertEgressAllowed(deps: Pick<ApiDeps, 'egress'>, urls: Array<{ field: string; url: string | null | undefined }>): Promise<void> {
  const issues: FieldIssue[] = [];
  for (const { field, url } of urls) {
    const refusal = url ? await deps.egress.refusalOfUrl(url) : undefined;
    if (refusal) issues.push({ field, message: refusal });
  }
  if (issues.length) throw new ValidationError(issues);
}
