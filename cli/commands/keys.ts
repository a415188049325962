import type { Command } from 'commander';
import { ROLES, type Role } from '../../core/principal.js';
import type { AgentEvalClient } from '../../sdk/client.js';
import { AgentEvalError, ServiceApiError } from '../../sdk/errors.js';
import { action, connect, isNotFound } from '../client.js';
import { CliError, colorsFor, printJson, println, printListing, type CliIo } from '../io.js';
import { table, time } from '../output.js';

interface ProjectOption {
  project?: string;
  json?: boolean;
}

/** The project whose keys are meant: --project, else the configured one, else the one the key reaches. */
async function projectOf(client: AgentEvalClient, opts: ProjectOption): Promise<string> {
  try {
    return await client.projectId(opts.project);
  } catch (err) {
    if (err instanceof AgentEvalError && !(err instanceof ServiceApiError))
      throw new CliError(err.message.replace('set project or AGENT_EVAL_PROJECT', 'use --project'));
    throw err;
  }
}

async function list(io: CliIo, opts: ProjectOption & { all?: boolean }): Promise<void> {
  const client = connect(io);
  const project = await projectOf(client, opts);
  const answer = await client.keys.list(project);
  const keys = opts.all ? answer.keys : answer.keys.filter((k) => !k.revoked_at);
  printListing(io, opts, {
    answer: { project_id: project, keys },
    items: keys,
    noun: 'API keys',
    table: (c) =>
      table(
        c,
        ['Id', 'Name', 'Role', 'Prefix', 'Created', 'Last used', 'Revoked'],
        keys.map((k) => [k.id, k.name, k.role, `${k.prefix}...`, time(k.created_at), time(k.last_used_at), k.revoked_at ? c.red(time(k.revoked_at)) : '']),
      ),
  });
}

async function create(io: CliIo, name: string, opts: ProjectOption & { role: string; env?: string }): Promise<void> {
  if (!(ROLES as readonly string[]).includes(opts.role)) throw new CliError(`--role must be one of: ${ROLES.join(', ')}`);
  const client = connect(io);
  const project = await projectOf(client, opts);
  const key = await client.keys.create({ name, role: opts.role as Role, ...(opts.env ? { env: opts.env } : {}) }, project);
  if (opts.json) return printJson(io, key);
  const c = colorsFor(io.stdout, io.env);
  println(io.stdout, `${c.green('Created')} ${key.role} key ${key.name} (${key.id}) for project ${project}:`);
  println(io.stdout, c.bold(key.key));
  println(io.stdout, c.yellow('The key is shown this once: store it now.'));
}

async function revoke(io: CliIo, keyId: string, opts: ProjectOption): Promise<void> {
  const client = connect(io);
  const project = await projectOf(client, opts);
  try {
    await client.keys.revoke(keyId, project);
  } catch (err) {
    if (isNotFound(err))
      throw new CliError(`Failed to revoke key: ${keyId}`, `Project ${project} has no live key with this id (agent-eval keys list shows them).`);
    throw err;
  }
  if (opts.json) return printJson(io, { id: keyId, project_id: project, revoked: true });
  println(io.stdout, `Revoked key ${keyId}`);
}

export function registerKeys(program: Command, io: CliIo): void {
  const keys = program.command('keys').description('API keys of a project (needs an admin key)');
  const projectHelp = 'the project (default: the configured one, or the one the key belongs to)';

  keys
    .command('list', { isDefault: true })
    .description('list the keys (never their secrets)')
    .option('--project <id>', projectHelp)
    .option('--all', 'include revoked keys')
    .option('--json', 'print the keys as JSON')
    .action(action(io, (opts: ProjectOption & { all?: boolean }) => list(io, opts)));

  keys
    .command('create')
    .description('create a key; its secret is printed once')
    .argument('<name>')
    .option('--role <role>', `${ROLES.join(', ')}`, 'member')
    .option('--env <env>', 'environment label, as in ae_<env>_... (default live)')
    .option('--project <id>', projectHelp)
    .option('--json', 'print the key (with its secret) as JSON')
    .action(action(io, (name: string, opts: ProjectOption & { role: string; env?: string }) => create(io, name, opts)));

  keys
    .command('revoke')
    .description('revoke a key by id')
    .argument('<key_id>')
    .option('--project <id>', projectHelp)
    .option('--json', 'print the result as JSON')
    .action(action(io, (keyId: string, opts: ProjectOption) => revoke(io, keyId, opts)));
}
