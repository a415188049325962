import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const TEMPORAL_SCRIPT = fileURLToPath(new URL('../../scripts/temporal.sh', import.meta.url));

/**
 * Builds the Temporal CLI that every service runs for its embedded workflow engine, when it is
 * not cached yet (scripts/temporal.sh: 6-11 minutes on a fresh machine, then cached). Callers
 * that start services (the test run's global setup, the bench) call it first, so no service
 * start waits for the build longer than its start timeout.
 */
export function ensureTemporalCli(): void {
  execFileSync('bash', [TEMPORAL_SCRIPT, 'path'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
