import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { cliEnv, runCli } from './run-cli.js';
import { endQuietlyOnClosedOutput } from '../../cli/process-guards.js';

describe('the agent-eval command line', () => {
  it('names an unknown command and lists the commands, instead of "too many arguments for serve"', async () => {
    const r = await runCli(['stauts'], { env: {} });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^agent-eval: unknown command 'stauts'\. Commands: .*\bruns\b.*\bserve\b/);
    expect(r.stderr).not.toMatch(/too many arguments|\n\s+at /);
  });

  it('ends quietly when the reader of its output goes away (| head), without a stack trace', async () => {
    // A command that keeps writing, as `runs results` does for a long run, with the guard main.ts installs.
    const script = `
      const { endQuietlyOnClosedOutput } = await import(${JSON.stringify(new URL('../../cli/process-guards.ts', import.meta.url).pathname)});
      endQuietlyOnClosedOutput([process.stdout, process.stderr]);
      setInterval(() => process.stdout.write('case 1 passed 0.93\\n'.repeat(200)), 5);`;
    const run = (withGuard: boolean) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', '--input-type=module', '-e', withGuard ? script : script.replace('endQuietlyOnClosedOutput([', '([')],
          { env: cliEnv({}), stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.stdout.once('data', () => child.stdout.destroy());
        child.on('close', (code) => resolve({ code, stderr }));
      });
    const guarded = await run(true);
    expect(guarded.stderr).toBe('');
    expect(guarded.code).toBe(0);
    // Without it, Node's own behaviour: the EPIPE is thrown with its stack.
    const bare = await run(false);
    expect(bare.stderr).toMatch(/EPIPE/);
    expect(bare.code).not.toBe(0);
  });

  it('ends with one line and code 1 when its output fails otherwise', () => {
    const codes: number[] = [];
    const out = new PassThrough() as unknown as NodeJS.WriteStream;
    endQuietlyOnClosedOutput([out], (code) => codes.push(code));
    out.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    out.emit('error', Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    expect(codes).toEqual([0, 1]);
  });
});
