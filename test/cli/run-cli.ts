import { execFile } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/processes.js';

/** The installed command, as `npx agent-eval` runs it. */
export const BIN = path.join(REPO_ROOT, 'bin', 'agent-eval.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a child CLI: this process's, without any AGENT_EVAL_* or colour variable
 * that would change what the test means, plus `env`.
 */
export function cliEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('AGENT_EVAL_') || k === 'NO_COLOR' || k === 'FORCE_COLOR' || k === 'CI') continue;
    base[k] = v;
  }
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return base;
}

/** `node bin/agent-eval.js ...args` in a child process; resolves with its exit code and output (never rejects on exit 1). */
export function runCli(
  args: string[],
  opts: { env: Record<string, string | undefined>; cwd?: string; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: opts.cwd ?? REPO_ROOT, env: cliEnv(opts.env), timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') {
          reject(new Error(`agent-eval ${args.join(' ')} did not exit: ${err.message}\n${stderr}`));
          return;
        }
        resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(opts.input ?? '');
  });
}

/** The JSON a `--json` command printed on stdout. */
export function parseJson<T>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.code}):\n${result.stdout}\n--- stderr:\n${result.stderr}`);
  }
}
