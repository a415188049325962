import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { droppedLogWrites } from '../../core/log-destination.js';
import { createLogger } from '../../core/logger.js';
import { REPO_ROOT } from '../helpers/processes.js';

/** Logging never kills the process (docs/deployment.md, "Logs"): a failed write is dropped and counted. */

describe('the logger on a destination that fails', () => {
  it('drops and counts lines a full disk refuses (ENOSPC, /dev/full), and goes on', () => {
    const fd = fs.openSync('/dev/full', 'w');
    try {
      const before = droppedLogWrites().get('ENOSPC') ?? 0;
      const logger = createLogger('info', fd);
      expect(() => {
        logger.info('first');
        logger.error({ err: new Error('boom') }, 'second');
        logger.warn('third');
      }).not.toThrow();
      expect(droppedLogWrites().get('ENOSPC')).toBe(before + 3);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('writes every line whole to a working destination', () => {
    const file = `${fs.mkdtempSync('/tmp/log-destination-')}/out.log`;
    const fd = fs.openSync(file, 'w');
    try {
      const logger = createLogger('info', fd);
      for (let i = 0; i < 100; i++) logger.info({ i, text: 'x'.repeat(1000) }, 'line');
      const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(100);
      expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([...Array(100).keys()]);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('a process whose stdout reader went away (EPIPE) keeps running and counts the lines it dropped', async () => {
    // The service's own logger on fd 1, in a child whose stdout pipe the test closes at once (as
    // `agent-eval serve | head` does once head has its lines).
    const script = `
      const { createLogger } = await import(${JSON.stringify(new URL('../../core/logger.ts', import.meta.url).href)});
      const { droppedLogWrites } = await import(${JSON.stringify(new URL('../../core/log-destination.ts', import.meta.url).href)});
      const logger = createLogger('info');
      await new Promise((r) => setTimeout(r, 300));
      for (let i = 0; i < 50; i++) logger.info({ i }, 'a line nobody reads');
      process.stderr.write(JSON.stringify(Object.fromEntries(droppedLogWrites())) + '\\n');
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code, stderr).toBe(0);
    const drops = JSON.parse(stderr.trim().split('\n').at(-1)!) as Record<string, number>;
    expect(drops.EPIPE).toBe(50);
  });
});
