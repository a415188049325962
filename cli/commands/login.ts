import readline from 'node:readline/promises';
import { Writable } from 'node:stream';
import type { Command } from 'commander';
import { AgentEvalClient } from '../../sdk/client.js';
import { ServiceApiError } from '../../sdk/errors.js';
import { action } from '../client.js';
import { configPath, DEFAULT_URL, normalizeUrl, readConfigFile, removeConfigFile, writeConfigFile, type ConfigFile } from '../config.js';
import { CliError, colorsFor, printJson, println, type CliIo } from '../io.js';

interface LoginOptions {
  url?: string;
  apiKey?: string;
  project?: string;
  verify: boolean;
  json?: boolean;
}

/** Asks on the terminal; the answer is not echoed when `hidden` (an API key). */
async function ask(io: CliIo, question: string, hidden: boolean): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) io.stderr.write(chunk);
      done();
    },
  });
  const rl = readline.createInterface({ input: io.stdin, output, terminal: true });
  try {
    io.stderr.write(question);
    muted = hidden;
    return (await rl.question('')).trim();
  } finally {
    if (hidden) io.stderr.write('\n');
    rl.close();
  }
}

/** The first line of a piped stdin (`echo $KEY | agent-eval login`). */
async function firstLine(stdin: NodeJS.ReadStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split('\n')[0].trim();
}

async function readKey(io: CliIo): Promise<string> {
  const key = io.stdin.isTTY ? await ask(io, 'API key: ', true) : await firstLine(io.stdin);
  if (!key) throw new CliError('No API key given', 'Pass --api-key, type it when asked, or pipe it on stdin.');
  return key;
}

/**
 * `agent-eval login`: checks the URL and key against the service (GET /api/projects) and stores
 * them in the config file, mode 0600.
 */
async function login(io: CliIo, opts: LoginOptions): Promise<void> {
  const file = configPath(io.env);
  const previous = readConfigFile(file);
  const url = normalizeUrl(opts.url?.trim() || io.env.AGENT_EVAL_URL?.trim() || previous.url || DEFAULT_URL);
  const apiKey = opts.apiKey?.trim() || (await readKey(io));
  const project = opts.project?.trim() || undefined;
  let projectName: string | undefined;
  if (opts.verify) {
    const client = new AgentEvalClient({ url, apiKey, project, retries: 1 });
    try {
      const { projects } = await client.projects.list();
      const mine = projects.find((p) => p.id === project) ?? (projects.length === 1 ? projects[0] : undefined);
      projectName = mine ? `${mine.name} (${mine.id})` : undefined;
    } catch (err) {
      if (err instanceof ServiceApiError && err.status === 401) throw new CliError('Not authenticated', `${url} refused this API key; nothing was saved.`);
      throw new CliError(
        `Failed to verify credentials: ${err instanceof Error ? err.message : String(err)}`,
        'Nothing was saved. Use --no-verify to save without checking.',
      );
    }
  }
  const config: ConfigFile = { url, api_key: apiKey, ...(project ? { project } : {}) };
  writeConfigFile(file, config);
  if (opts.json) {
    printJson(io, { url, project: project ?? null, config_file: file, verified: opts.verify });
    return;
  }
  const c = colorsFor(io.stdout, io.env);
  println(io.stdout, `${c.green('Logged in')} to ${url}${projectName ? ` as project ${projectName}` : ''}`);
  println(io.stdout, c.dim(`Credentials saved to ${file} (mode 0600). AGENT_EVAL_URL and AGENT_EVAL_API_KEY override them.`));
}

export function registerLogin(program: Command, io: CliIo): void {
  program
    .command('login')
    .description('store the service URL and an API key in the config file (mode 0600)')
    .option('--url <url>', `service URL (default: AGENT_EVAL_URL, the saved URL, or ${DEFAULT_URL})`)
    .option('--api-key <key>', 'API key (default: asked on a terminal, else read from stdin)')
    .option('--project <id>', 'project to send with every call (only needed without a key, or with a multi-project token)')
    .option('--no-verify', 'save without checking the credentials against the service')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nThe config file is $AGENT_EVAL_CONFIG, else ~/.config/agent-eval/config.json.')
    .action(action(io, (opts: LoginOptions) => login(io, opts)));

  program
    .command('logout')
    .description('remove the stored credentials')
    .action(
      action(io, () => {
        const file = configPath(io.env);
        println(io.stdout, removeConfigFile(file) ? `Removed ${file}` : `No credentials stored at ${file}`);
      }),
    );
}
