import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.js';
import { SHARED_PROCESS_FILES } from './test/shared-process-files.js';

/** The one unit test that opens chDB, which binds one data dir per process: it gets a process of its own. */
const UNIT_WITH_CHDB = 'test/unit/clickhouse/embedded-connection-after-failed-query.test.ts';

export default defineConfig({
  // The examples import the SDK as a user would (`agent-eval/sdk`); in the tests that is its source.
  // Exactly `agent-eval/sdk`: `agent-eval/sdk/browser` is its own entry.
  resolve: {
    alias: [
      { find: /^agent-eval\/sdk$/, replacement: fileURLToPath(new URL('./sdk/index.ts', import.meta.url)) },
      { find: /^agent-eval\/sdk\/browser$/, replacement: fileURLToPath(new URL('./sdk/browser.ts', import.meta.url)) },
    ],
  },
  test: {
    // Builds the Temporal CLI into the cache dir when missing (scripts/temporal.sh).
    globalSetup: ['test/global-setup.ts'],
    // Integration tests start real PostgreSQL, chDB and Kafka processes; give them room.
    testTimeout: 120_000,
    hookTimeout: 240_000,
    // expect.poll's own default gives up after 1 s: too little for a page or a worker on a busy
    // two-core machine (a browser test's first rows, an alert's first evaluation).
    expect: { poll: { timeout: 15_000, interval: 100 } },
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    // Longest files first (test/durations.json), so the last minutes are not one long file alone.
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        // Unit tests share their worker processes (no fresh module graph per file): they start no
        // service and hold no process-wide resource, and importing the code base once per worker
        // instead of once per file halves their time.
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: [UNIT_WITH_CHDB], isolate: false },
      },
      {
        // Files of the real stores (chDB, embedded PostgreSQL) and the API in the test's process that
        // leave nothing process-wide behind: one after another in shared worker processes, each file
        // with its own data dir, chDB closed before the next opens its own (test/shared-process-files.ts).
        extends: true,
        test: { name: 'shared-store', include: [...SHARED_PROCESS_FILES], isolate: false },
      },
      {
        // Everything else that starts PostgreSQL, chDB, Temporal, Kafka, a browser or the service: a
        // process per file (chDB binds one data dir per process at a time).
        extends: true,
        test: {
          name: 'service',
          include: ['test/{integration,e2e,browser,cli,sdk}/**/*.test.ts', UNIT_WITH_CHDB],
          exclude: [...SHARED_PROCESS_FILES],
          isolate: true,
        },
      },
    ],
  },
});
