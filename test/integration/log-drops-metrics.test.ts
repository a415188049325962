import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.js';
import { startTestApi, type TestApi } from '../helpers/server.js';

/** Dropped log lines are counted on /metrics (docs/deployment.md, "Logs"). */

let svc: TestApi;

beforeAll(async () => {
  svc = await startTestApi();
});
afterAll(async () => {
  await svc?.stop();
});

async function dropped(code: string): Promise<number> {
  const res = await svc.api('/metrics');
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(text).toContain('# TYPE agent_eval_log_writes_dropped_total counter');
  const line = text.split('\n').find((l) => l.startsWith(`agent_eval_log_writes_dropped_total{code="${code}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('agent_eval_log_writes_dropped_total', () => {
  it('counts the lines a full disk refused, by error code, and the service goes on answering', async () => {
    const before = await dropped('ENOSPC');
    // A logger of this process on a destination that refuses every write (ENOSPC).
    const fd = fs.openSync('/dev/full', 'w');
    try {
      const logger = createLogger('info', fd);
      for (let i = 0; i < 5; i++) logger.error({ i }, 'cannot be written');
    } finally {
      fs.closeSync(fd);
    }
    expect(await dropped('ENOSPC')).toBe(before + 5);
    expect((await svc.api('/api/traces')).status).toBe(200);
  });
});
