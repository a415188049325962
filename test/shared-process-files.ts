/**
 * The test files of vitest project 'shared-store': files of the real stores that run one after
 * another in a worker process they share (isolate: false), so the code base is imported once per
 * worker, not once per file (5-10 s of transform and import each; docs/benchmarks.md, "Test suite
 * wall time"). chDB binds one data dir per process at a time, not for the process's life: a file
 * that closes its chDB (the test helpers' hooks do, in afterAll) leaves the process to the next
 * file, which opens its own data dir and sees nothing of the last one.
 *
 * A file belongs here when it opens the stores or the API in the test's own process and leaves
 * nothing process-wide behind: it starts no service roles (startTestService, the workflow engine's
 * native runtime is one per process), no Kafka, no OS processes or browser, and mocks, stubs or
 * sets no module, global or environment variable. test/unit/shared-process-files.test.ts checks
 * the listed files for those. Every other file of the 'service' project keeps a process of its own.
 */
export const SHARED_PROCESS_FILES: readonly string[] = [
  'test/cli/docs-match-cli.test.ts',
  'test/cli/options.test.ts',
  'test/integration/agents-api.test.ts',
  'test/integration/analytics-api.test.ts',
  'test/integration/api-traces-filters.test.ts',
  'test/integration/api-traces-sort.test.ts',
  'test/integration/api-traces.test.ts',
  'test/integration/audit-log.test.ts',
  'test/integration/backup-refusals.test.ts',
  'test/integration/binary-rows-property.test.ts',
  'test/integration/chdb-failed-query-output.test.ts',
  'test/integration/cli-suite-datasets.test.ts',
  'test/integration/clickhouse-gateway.test.ts',
  'test/integration/compare-conversations.test.ts',
  'test/integration/conversation-scorers.test.ts',
  'test/integration/correlation-error-codes.test.ts',
  'test/integration/costs.test.ts',
  'test/integration/data-deletion.test.ts',
  'test/integration/distributed-clickhouse-ddl.test.ts',
  'test/integration/export-roundtrip-property.test.ts',
  'test/integration/exports-million.test.ts',
  'test/integration/exports.test.ts',
  'test/integration/feedback-api.test.ts',
  'test/integration/feedback-atomic.test.ts',
  'test/integration/fuzz-bodies.test.ts',
  'test/integration/hostile-ids.test.ts',
  'test/integration/http-scorer.test.ts',
  'test/integration/insert-lanes.test.ts',
  'test/integration/judge-calibration.test.ts',
  'test/integration/judge-providers.test.ts',
  'test/integration/judges-no-provider.test.ts',
  'test/integration/log-drops-metrics.test.ts',
  'test/integration/metrics-auth.test.ts',
  'test/integration/migration-002.test.ts',
  'test/integration/migration-006.test.ts',
  'test/integration/migration-008.test.ts',
  'test/integration/migration-009.test.ts',
  'test/integration/oidc-signin.test.ts',
  'test/integration/otlp-receivers.test.ts',
  'test/integration/prompts-api.test.ts',
  'test/integration/queues-api.test.ts',
  'test/integration/roundtrip-property.test.ts',
  'test/integration/sdk-client-scorers-rules-prices.test.ts',
  'test/integration/session-scores-api.test.ts',
  'test/integration/sessions-auth-none.test.ts',
  'test/integration/sessions.test.ts',
  'test/integration/span-rows.test.ts',
  'test/integration/spec-errors.test.ts',
  'test/integration/suite-datasets.test.ts',
  'test/integration/suites-api.test.ts',
  'test/integration/tool-analytics-api.test.ts',
  'test/integration/trace-derivation.test.ts',
  'test/integration/trace-sessions-api.test.ts',
  'test/integration/trace-span-pages.test.ts',
  'test/integration/trace-tags-api.test.ts',
  'test/integration/ui-serving.test.ts',
  'test/integration/unreachable-stores.test.ts',
  'test/integration/write-atomicity.test.ts',
  'test/sdk/errors-and-validation.test.ts',
  'test/sdk/tracing.test.ts',
];
