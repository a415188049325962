-- Budget alerts (issue "the dashboard for real work": cost analytics): a rule may measure `cost`,
-- the USD of the traces started in its window (docs/alerts.md, "Metrics"). The metric's check
-- names every metric the model allows (core/model/alert.ts ALERT_METRICS).
ALTER TABLE alert_rules DROP CONSTRAINT IF EXISTS alert_rules_metric_check;
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_metric_check
    CHECK (metric IN ('avg_score', 'error_rate', 'latency_p50', 'latency_p95', 'tokens_per_trace', 'run_pass_rate', 'trace_count', 'cost', 'drift'));
