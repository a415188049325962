/**
 * Example 1: trace a tool-calling agent. Two lines set it up; every step shows in the
 * dashboard's span tree with its kind, model, tokens and tool input and output.
 *
 *   AGENT_EVAL_URL=http://localhost:3000 AGENT_EVAL_API_KEY=ae_live_... npx tsx examples/traced-agent.ts
 */
import { init, shutdown, trace } from 'agent-eval/sdk';
import { weatherAgent } from './weather-agent.js';

init({ serviceName: 'weather-agent' }); // url, apiKey and project from AGENT_EVAL_URL / AGENT_EVAL_API_KEY / AGENT_EVAL_PROJECT

const traceId = await trace('support session', async (session) => {
  const answer = await weatherAgent({ query: process.argv[2] ?? 'What is the weather in Paris?' });
  process.stdout.write(`${answer}\n`);
  return session.traceId;
});

await shutdown(); // sends the spans before the process ends
process.stdout.write(`trace ${traceId}\n`);
