import type { OnlineRule } from '../../core/model/online-rule.js';
import type { TestApi } from './server.js';
import { expectJson } from './test-service-hooks.js';

/** Online rules through the API as one project: traces sent, rules created and read (docs/online-evals.md). */
export function onlineRulesApi(svc: Pick<TestApi, 'api'>, project: string) {
  return {
    project,
    ingest: async (body: unknown) => expectJson(await svc.api('/api/traces/ingest', { method: 'POST', project, json: body }), 201),
    create: async (body: Record<string, unknown>) =>
      expectJson<OnlineRule>(await svc.api('/api/evals/online-rules', { method: 'POST', project, json: body }), 201),
    rule: async (id: string) => expectJson<OnlineRule>(await svc.api(`/api/evals/online-rules/${id}`, { project }), 200),
  };
}
