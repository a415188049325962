/** The suites pages: the example shown when a project has none, and how scorers read. */
import type { ScorerRef } from './types.js';

/**
 * The YAML example of docs/suites.md ("YAML"), with its `agent:` line commented out so the text
 * can be sent as it is to a project that has no agent named `weather-bot` yet.
 */
export const SUITE_YAML_EXAMPLE = `# weather.suite.yaml
name: weather-agent
description: Answers weather questions with the forecast tool
# agent: weather-bot            # an agent's name or id (or agent_id)
scorers:                        # defaultScorers
  - contains
  - name: latency
    config: {maxMs: 5000}
minScore: 0.8                   # defaultMinScore
aggregation: mean
cases:
  - name: paris today
    input: {query: "What is the weather in Paris today?"}
    expected:
      toolCalls: [get_forecast]
      outputContains: [Paris]
  - name: refuses stock tips
    input: {query: "Which stock should I buy?"}
    expected: {outputContains: ["can't"]}
    scorers: [contains]         # replaces the defaults for this case
    minScore: 0.5
`;

/** The curl command that creates a suite from a YAML file, against this service. */
export function suiteCurl(origin: string, projectId: string | null, withKey: boolean): string {
  const lines = [`curl -X POST ${origin}/api/suites`];
  if (withKey) lines.push(`  -H "x-api-key: $AGENT_EVAL_KEY"`);
  if (projectId) lines.push(`  -H "x-project-id: ${projectId}"`);
  lines.push(`  -H "content-type: application/yaml"`, `  --data-binary @weather.suite.yaml`);
  return lines.join(' \\\n');
}

/** `contains`, or `latency {maxMs: 5000} min 0.8 ×2` for a scorer with settings. */
export function scorerLabel(ref: ScorerRef): string {
  const parts = [ref.name];
  const config = ref.config && Object.keys(ref.config).length ? JSON.stringify(ref.config) : '';
  if (config) parts.push(config);
  if (ref.minScore !== undefined) parts.push(`min ${ref.minScore}`);
  if (ref.weight !== undefined && ref.weight !== 1) parts.push(`×${ref.weight}`);
  return parts.join(' ');
}

/** `?version=N` as a positive integer, else null (the latest). */
export function parseVersion(q: URLSearchParams): number | null {
  const n = Number(q.get('version'));
  return Number.isInteger(n) && n >= 1 ? n : null;
}
