import { Counter, Gauge, type Registry } from 'prom-client';
import type { OnlineEvalStore, RuleMetrics } from '../../core/store/postgres/online-eval-store.js';
import { DEPENDENCY_TIMEOUT_MS, withDeadline } from '../deadline.js';

type Source = Pick<OnlineEvalStore, 'metrics'>;

/**
 * Online evaluation on /metrics (docs/online-evals.md, "Visibility"), per rule: the counters every
 * worker adds to in PostgreSQL, so any process serving the API reports the whole deployment's
 * figures, whichever workers did the scoring. Read once per scrape within DEPENDENCY_TIMEOUT_MS;
 * when PostgreSQL does not answer, the scrape succeeds without these series and
 * `agent_eval_online_eval_stats_up` is 0.
 */
export function registerOnlineEvalMetrics(registry: Registry, store: Source): void {
  let current: Promise<RuleMetrics[] | undefined> | undefined;
  // All the series below are filled from one read per scrape.
  const read = () => {
    current ??= withDeadline(() => store.metrics(), DEPENDENCY_TIMEOUT_MS).then((r) => {
      setImmediate(() => (current = undefined));
      return r.ok ? r.value : undefined;
    });
    return current;
  };
  const labelNames = ['rule_id', 'project_id'] as const;
  const counter = (name: string, help: string, value: (m: RuleMetrics) => number) =>
    new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const rules = await read();
        this.reset();
        for (const m of rules ?? []) this.inc({ rule_id: m.rule_id, project_id: m.project_id }, value(m));
      },
    });
  const gauge = (name: string, help: string, value: (m: RuleMetrics) => number) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const rules = await read();
        this.reset();
        for (const m of rules ?? []) this.set({ rule_id: m.rule_id, project_id: m.project_id }, value(m));
      },
    });

  counter('agent_eval_online_eval_traces_scored_total', 'Traces an online rule scored (each once, with all its scorers)', (m) => m.scored);
  counter('agent_eval_online_eval_traces_skipped_total', "Traces an online rule's filter matched that its sample left out", (m) => m.skipped_by_sampling);
  counter('agent_eval_online_eval_errors_total', 'Scorer verdicts that were errors, plus traces an online rule could not score', (m) => m.errors);
  counter('agent_eval_online_eval_judge_tokens_total', "Input + output tokens of an online rule's LLM judge calls", (m) => m.judge_tokens);
  counter('agent_eval_online_eval_cost_usd_total', "Cost of an online rule's judge calls the price table priced, in US dollars", (m) => m.cost_usd);
  gauge('agent_eval_online_eval_pending', 'Sampled traces waiting to be scored or being scored', (m) => m.pending);
  gauge('agent_eval_online_eval_lag_seconds', 'Now minus the end of the oldest trace an online rule will score and has not yet (0: none waits)', (m) => m.lag_seconds);
  new Gauge({
    name: 'agent_eval_online_eval_stats_up',
    help: '1 when the online rules counters were read for this scrape, 0 when PostgreSQL did not answer in time',
    registers: [registry],
    async collect() {
      this.set((await read()) ? 1 : 0);
    },
  });
}
