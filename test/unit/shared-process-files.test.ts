import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SHARED_PROCESS_FILES } from '../shared-process-files.js';

/**
 * What a file sharing its worker process with others must not do (test/shared-process-files.ts):
 * start processes, Kafka, a browser or a workflow engine of its own, or mock, stub or set what the
 * next file in the process would inherit.
 */
const LEAVES_PROCESS_STATE: ReadonlyArray<[string, RegExp]> = [
  ['starts the service other than through the test helpers, whose stop() ends it', /\b(startService|createRuntime)\b/],
  ['starts OS processes', /\b(spawnServiceProcess|child_process|execa|spawn)\b/],
  ['uses the workflow engine', /@temporalio|workflow-env/],
  ['starts Kafka', /helpers\/kafka|startKafka|KAFKA_BROKERS/],
  ['drives a browser', /\b(chromium|playwright)\b/i],
  ['mocks or stubs', /\bvi\.(mock|doMock|stubEnv|stubGlobal|useFakeTimers)\b/],
  ['sets the environment', /(process\.env\.\w+|process\.env\[[^\]]+\])\s*=(?!=)|delete process\.env/],
];

describe('the files of the shared-store project', () => {
  it.each(SHARED_PROCESS_FILES.map((file) => [file]))('%s leaves nothing process-wide behind', (file) => {
    const source = fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    const found = LEAVES_PROCESS_STATE.filter(([, pattern]) => pattern.test(source)).map(([what]) => what);
    expect(found, `${file} ${found.join(', ')}: give it a process of its own (remove it from test/shared-process-files.ts)`).toEqual([]);
  });

  it('names each file once', () => {
    expect(new Set(SHARED_PROCESS_FILES).size).toBe(SHARED_PROCESS_FILES.length);
  });
});
