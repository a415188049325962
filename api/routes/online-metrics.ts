import { Counter, Gauge, Registry } from 'prom-client';
import type { OnlineEvalStore, RuleMetrics } from '../../core/store/online-evals.js';
import { DEPENDENCY_TIMEOUT_MS, withDeadline } from '../deadline.js';

type Source = Pick<OnlineEvalStore, 'metrics'>;

const COUNTERS: ReadonlyArray<[name: string, help: string, value: (m: RuleMetrics) => number]> = [
  ['agent_eval_online_eval_traces_scored_total', 'Traces an online rule scored (each once, with all its scorers)', (m) => m.scored],
  ['agent_eval_online_eval_traces_skipped_total', "Traces an online rule's filter matched that its sample left out", (m) => m.skipped_by_sampling],
  ['agent_eval_online_eval_errors_total', 'Scorer verdicts that were errors, plus traces an online rule could not score', (m) => m.errors],
  ['agent_eval_online_eval_judge_tokens_total', "Input + output tokens of an online rule's LLM judge calls", (m) => m.judge_tokens],
  ['agent_eval_online_eval_cost_usd_total', "Cost of an online rule's judge calls the price table priced, in US dollars", (m) => m.cost_usd],
];
const GAUGES: ReadonlyArray<[name: string, help: string, value: (m: RuleMetrics) => number]> = [
  ['agent_eval_online_eval_pending', 'Sampled traces waiting to be scored or being scored', (m) => m.pending],
  [
    'agent_eval_online_eval_lag_seconds',
    'Now minus the end of the oldest trace an online rule will score and has not yet (0: none waits)',
    (m) => m.lag_seconds,
  ],
];

/**
 * Online evaluation on /metrics (docs/online-evals.md, "Visibility"), per rule: the counters every
 * worker adds to in PostgreSQL, so any process serving the API reports the whole deployment's
 * figures, whichever workers did the scoring. Read once per scrape within DEPENDENCY_TIMEOUT_MS;
 * when PostgreSQL does not answer, the scrape succeeds without these series and
 * `agent_eval_online_eval_stats_up` is 0.
 *
 * Built for one scrape: only the rules of the projects `visible` accepts get series, so a
 * project's admin never sees another project's ids (docs/security.md, "Metrics").
 */
export async function onlineEvalRegistry(store: Source, visible: (projectId: string) => boolean): Promise<Registry> {
  const read = await withDeadline(() => store.metrics(), DEPENDENCY_TIMEOUT_MS);
  const rules = read.ok ? read.value.filter((m) => visible(m.project_id)) : [];
  const registry = new Registry();
  const labelNames = ['rule_id', 'project_id'] as const;
  for (const [name, help, value] of COUNTERS) {
    const counter = new Counter({ name, help, labelNames, registers: [registry] });
    for (const m of rules) counter.inc({ rule_id: m.rule_id, project_id: m.project_id }, value(m));
  }
  for (const [name, help, value] of GAUGES) {
    const gauge = new Gauge({ name, help, labelNames, registers: [registry] });
    for (const m of rules) gauge.set({ rule_id: m.rule_id, project_id: m.project_id }, value(m));
  }
  new Gauge({
    name: 'agent_eval_online_eval_stats_up',
    help: '1 when the online rules counters were read for this scrape, 0 when PostgreSQL did not answer in time',
    registers: [registry],
  }).set(read.ok ? 1 : 0);
  return registry;
}
