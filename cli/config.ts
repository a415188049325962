import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { CliError, type CliIo } from './io.js';

/**
 * Where the CLI finds its service and credentials. `agent-eval login` writes a JSON file
 * (mode 0600: it holds an API key); `AGENT_EVAL_URL`, `AGENT_EVAL_API_KEY` and
 * `AGENT_EVAL_PROJECT` override its fields one by one, so CI needs no file at all.
 */

export const DEFAULT_URL = 'http://localhost:3000';

const FileSchema = z.object({
  url: z.string().optional(),
  api_key: z.string().optional(),
  project: z.string().optional(),
});
export type ConfigFile = z.infer<typeof FileSchema>;

/** The service a command talks to, and as whom. */
export interface Credentials {
  url: string;
  apiKey?: string;
  /** Sent as `x-project-id`; needed only by a server with AUTH_MODE=none or a multi-project token. */
  project?: string;
}

function nonEmpty(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

/** `$AGENT_EVAL_CONFIG`, else `$XDG_CONFIG_HOME/agent-eval/config.json`, else `~/.config/agent-eval/config.json`. */
export function configPath(env: CliIo['env']): string {
  const explicit = nonEmpty(env.AGENT_EVAL_CONFIG);
  if (explicit) return path.resolve(explicit);
  const base = nonEmpty(env.XDG_CONFIG_HOME) ?? path.join(nonEmpty(env.HOME) ?? os.homedir(), '.config');
  return path.join(base, 'agent-eval', 'config.json');
}

/** The config file's fields; `{}` when there is none. */
export function readConfigFile(file: string): ConfigFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`Cannot read config file ${file}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`Invalid config file ${file}: not JSON (run agent-eval login again)`);
  }
  const result = FileSchema.safeParse(parsed);
  if (!result.success) throw new CliError(`Invalid config file ${file}: ${result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return result.data;
}

/**
 * Writes the config file readable by its owner only: a temporary file created with mode 0600 in
 * the same directory (0700 when created), then renamed over the old one, so the key is never
 * readable by others, not even for a moment, and a crash leaves the old file whole.
 */
export function writeConfigFile(file: string, config: ConfigFile): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    // mode is masked by the umask; 0600 holds under any umask, but say it explicitly.
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** Removes the config file; false when there was none. */
export function removeConfigFile(file: string): boolean {
  try {
    fs.unlinkSync(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/**
 * The credentials of a command: the environment's fields over the config file's. `Not
 * authenticated` (SPEC) when neither gives an API key, unless a project is named (a server
 * running with AUTH_MODE=none takes calls without credentials).
 */
export function resolveCredentials(env: CliIo['env']): Credentials {
  const file = readConfigFile(configPath(env));
  const apiKey = nonEmpty(env.AGENT_EVAL_API_KEY) ?? nonEmpty(file.api_key);
  const project = nonEmpty(env.AGENT_EVAL_PROJECT) ?? nonEmpty(file.project);
  if (!apiKey && !project) throw new CliError('Not authenticated', 'Run agent-eval login, or set AGENT_EVAL_URL and AGENT_EVAL_API_KEY.');
  const url = normalizeUrl(nonEmpty(env.AGENT_EVAL_URL) ?? nonEmpty(file.url) ?? DEFAULT_URL);
  return { url, apiKey, project };
}

/** An http(s) URL without a trailing slash; a CliError otherwise. */
export function normalizeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`Invalid service URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`Invalid service URL: ${raw} (use http:// or https://)`);
  return url.toString().replace(/\/+$/, '');
}
