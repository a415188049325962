import type { TestService } from './server.js';
import { expectJson } from './test-service-hooks.js';

/** POST /api/suites with `suite` as JSON; the answer's body once its status is `status` (201, created, unless the test expects a refusal). */
export async function postSuite<T = unknown>(svc: Pick<TestService, 'api'>, suite: unknown, status = 201): Promise<T> {
  return expectJson<T>(await svc.api('/api/suites', { method: 'POST', json: suite }), status);
}
