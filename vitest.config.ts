import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
    include: ['test/**/*.test.ts'],
    // Builds the Temporal CLI into the cache dir when missing (scripts/temporal.sh).
    globalSetup: ['test/global-setup.ts'],
    // Integration tests start real PostgreSQL, chDB and Kafka processes; give them room.
    testTimeout: 120_000,
    hookTimeout: 240_000,
    // chDB binds one data dir per process: each test file gets its own worker process.
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
