import { expect } from 'vitest';
import type { CaseResultView } from '../../core/model/eval-run.js';
import { eventually } from './eventually.js';
import type { TestService } from './server.js';
import { expectJson } from './test-service-hooks.js';

/** Waits (90 s at most) until run `id` is completed; fails on any other final status only by timing out. */
export async function untilCompleted(svc: Pick<TestService, 'api'>, id: string): Promise<void> {
  await eventually(async () => expect((await expectJson<{ status: string }>(await svc.api(`/api/runs/${id}`), 200)).status).toBe('completed'), 90_000);
}

/** Waits (`timeoutMs`) until run `id` has one of `statuses`, and returns it as GET /api/runs/{id} answers. */
export async function untilRunStatus<Run extends { status: string }>(
  svc: Pick<TestService, 'api'>,
  id: string,
  statuses: string[],
  timeoutMs = 60_000,
): Promise<Run> {
  return eventually(async () => {
    const run = await expectJson<Run>(await svc.api(`/api/runs/${id}`), 200);
    expect(statuses).toContain(run.status);
    return run;
  }, timeoutMs);
}

/** Run `id`'s case results (GET /api/evals/runs/{id}/results) by case name. */
export async function resultsByCase(svc: Pick<TestService, 'api'>, id: string): Promise<Record<string, CaseResultView>> {
  const body = await expectJson<{ results: CaseResultView[] }>(await svc.api(`/api/evals/runs/${id}/results`), 200);
  return Object.fromEntries(body.results.map((r) => [r.case_name, r]));
}
