import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Builds the tools the tests run for real, once, before any test file starts: the Temporal CLI
 * takes 6-11 minutes to build on a fresh machine, longer than any hook may wait, and every
 * service a test starts runs its dev server. Cached after the first build.
 */
export default function setup(): void {
  const script = fileURLToPath(new URL('../scripts/temporal.sh', import.meta.url));
  execFileSync('bash', [script, 'path'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
