/**
 * Example 2: a suite run in CI. Runs examples/weather.suite.yaml against the agent in this
 * process, uploads the run (results, scores, traces) and exits 1 when a case failed, so a
 * pipeline step fails on a regression.
 *
 *   AGENT_EVAL_URL=... AGENT_EVAL_API_KEY=... npx tsx examples/ci-suite.ts [agent-version]
 */
import { fileURLToPath } from 'node:url';
import { evaluate, EvaluationRunError, loadSuite } from 'agent-eval/sdk';
import { weatherAgent, type WeatherQuestion } from './weather-agent.js';

const suite = await loadSuite(fileURLToPath(new URL('./weather.suite.yaml', import.meta.url)));

try {
  const result = await evaluate(suite, {
    agent: (input) => weatherAgent(input as WeatherQuestion),
    agentName: 'weather-agent',
    agentVersion: process.argv[2] ?? process.env.GIT_COMMIT ?? 'dev',
    concurrency: 4,
    onProgress: (p) => process.stdout.write(`[${p.completed}/${p.total}] ${p.last.caseName}: ${p.last.status} (${p.last.avgScore.toFixed(2)})\n`),
  });
  for (const c of result.cases) process.stdout.write(`${c.passed ? 'PASS' : 'FAIL'} ${c.case_name} ${JSON.stringify(c.scores)}\n`);
  process.stdout.write(`run ${result.runId}: ${result.summary.passed}/${result.summary.total_cases} passed, avg ${result.summary.avg_score}\n${result.url}\n`);
  process.exitCode = result.passed ? 0 : 1;
} catch (err) {
  process.stderr.write(`${err instanceof EvaluationRunError ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
