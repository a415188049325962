/**
 * Example 3: an experiment. The control answers plainly, the treatment adds a friendly opening;
 * both run the same suite and the service's comparison says whether the change is significant.
 * `assign()` splits live traffic by the allocations.
 *
 *   AGENT_EVAL_URL=... AGENT_EVAL_API_KEY=... npx tsx examples/experiment.ts
 */
import { defineExperiment, defineScorer, defineSuite } from 'agent-eval/sdk';
import { weatherAgent, type WeatherQuestion } from './weather-agent.js';

const friendly = defineScorer({
  name: 'friendly',
  dataType: 'boolean',
  evaluate: ({ output }) => ({ value: /good news|!/i.test(String(output)), reason: 'an upbeat opening' }),
});

const cities = ['Paris', 'Oslo', 'Lima'];
const suite = defineSuite({
  name: 'weather-tone',
  scorers: ['contains', friendly],
  cases: cities.flatMap((city) =>
    ['today', 'now', 'this morning'].map((when) => ({
      name: `${city} ${when}`,
      input: { query: `What is the weather in ${city} ${when}?` },
      expected: { outputContains: [city] },
    })),
  ),
});

const experiment = defineExperiment({
  name: 'friendly-tone',
  variants: [
    { name: 'plain', type: 'control', allocation: 50, agent: (input) => weatherAgent(input as WeatherQuestion, 'plain') },
    { name: 'friendly', type: 'treatment', allocation: 50, agent: (input) => weatherAgent(input as WeatherQuestion, 'friendly') },
  ],
  percentile: 95,
  confidenceLevel: 0.95,
});

process.stdout.write(`user-1 gets ${experiment.assign('user-1').name}\n`);
const result = await experiment.run(suite, { concurrency: 3, agentName: 'weather-agent' });
for (const v of [result.control, ...result.treatments]) {
  process.stdout.write(`${v.name}: avg ${v.summary.avg_score}, p${v.latency.percentile} latency ${v.latency.ms} ms, run ${v.runId}\n`);
}
for (const t of result.treatments) {
  const s = t.comparison.significance;
  process.stdout.write(`${t.name} vs ${result.control.name}: mean delta ${s.mean_delta}, p=${s.p_value}, significant=${t.significant}\n`);
}
process.stdout.write(`winner: ${result.winner ?? 'none'}\n`);
