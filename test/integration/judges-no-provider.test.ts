import { describe, expect, it } from 'vitest';
import { useTestApi } from '../helpers/test-service-hooks.js';

/**
 * A service with no LLM provider configured knows the judges by name but refuses, when a suite
 * or a run is created, any that would need one: a clear 400, not cases failing one by one later.
 */

// The API alone, in process: the refusal comes before any workflow is started.
const svc = useTestApi(
  {},
  {
    async seed(started) {
      const agent = await started.api('/api/agents', { method: 'POST', json: { name: 'a', endpoint: 'http://127.0.0.1:9/agent' } });
      expect(agent.status).toBe(201);
    },
  },
);

const NONE =
  "LLM judge 'safety_judge' needs an LLM provider and none is configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GOOGLE_CLOUD_PROJECT (Vertex AI); see docs/judges.md";

async function error(res: Response): Promise<{ error: string; status: number }> {
  const text = await res.text();
  expect(res.status, text).toBe(400);
  return JSON.parse(text) as { error: string; status: number };
}

describe('judges without a provider', () => {
  it('refuses a run of the second family that names a judge, in the run or in an item', async () => {
    const run = await svc.api('/api/runs', {
      method: 'POST',
      json: { agentId: 'a', dataset: { items: [{ input: 'x' }] }, scorers: ['contains', 'safety_judge'] },
    });
    expect(await error(run)).toMatchObject({ error: `scorers[1]: ${NONE}` });
    const item = await svc.api('/api/runs', {
      method: 'POST',
      json: {
        agentId: 'a',
        dataset: { items: [{ input: 'x' }, { input: 'y', scorers: [{ name: 'llmJudge', config: { prompt: 'Good? {{output}}' } }] }] },
        scorers: ['contains'],
      },
    });
    expect((await error(item)).error).toMatch(/^dataset\.items\[1\]\.scorers\[0\]: LLM judge 'llmJudge' needs an LLM provider and none is configured/);
  });

  it('refuses a suite that names a judge, and runs nothing', async () => {
    const suite = await svc.api('/api/suites', {
      method: 'POST',
      json: { name: 'judged', defaultScorers: ['safety_judge'], cases: [{ name: 'c', input: 'x' }] },
    });
    expect(await error(suite)).toMatchObject({ error: `defaultScorers[0]: ${NONE}` });
    const listed = (await (await svc.api('/api/suites?name=judged')).json()) as { total: number };
    expect(listed.total).toBe(0);
  });

  it('still takes suites and runs of rule-based scorers', async () => {
    const suite = await svc.api('/api/suites', {
      method: 'POST',
      json: { name: 'rules', defaultScorers: ['contains'], cases: [{ name: 'c', input: 'x', expected: { outputContains: ['x'] } }] },
    });
    expect(suite.status).toBe(201);
  });
});
