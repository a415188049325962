import type { Command } from 'commander';
import { action, connect } from '../client.js';
import { colorsFor, printJson, println, printListing, type CliIo } from '../io.js';
import { table, time } from '../output.js';

async function list(io: CliIo, opts: { json?: boolean }): Promise<void> {
  const client = connect(io);
  const answer = await client.projects.list();
  printListing(io, opts, {
    answer,
    items: answer.projects,
    noun: 'projects',
    table: (c, projects) =>
      table(
        c,
        ['Id', 'Name', 'Default', 'Created'],
        projects.map((p) => [p.id, p.name, p.is_default ? 'yes' : '', time(p.created_at)]),
      ),
  });
}

async function create(io: CliIo, name: string, opts: { id?: string; keyName?: string; env?: string; json?: boolean }): Promise<void> {
  const client = connect(io);
  const project = await client.projects.create({
    name,
    ...(opts.id ? { id: opts.id } : {}),
    ...(opts.keyName ? { key_name: opts.keyName } : {}),
    ...(opts.env ? { env: opts.env } : {}),
  });
  if (opts.json) return printJson(io, project);
  const c = colorsFor(io.stdout, io.env);
  println(io.stdout, `${c.green('Created')} project ${project.name} (${project.id})`);
  println(io.stdout, `Admin key ${project.api_key.name} (${project.api_key.prefix}...): ${c.bold(project.api_key.key)}`);
  println(io.stdout, c.yellow('The key is shown this once: store it now.'));
}

export function registerProjects(program: Command, io: CliIo): void {
  const projects = program.command('projects').description('the projects these credentials reach');

  projects
    .command('list', { isDefault: true })
    .description('list the projects')
    .option('--json', 'print the answer as JSON')
    .action(action(io, (opts: { json?: boolean }) => list(io, opts)));

  projects
    .command('create')
    .description('create a project and its first admin key (needs projects:admin)')
    .argument('<name>')
    .option('--id <id>', 'the project id (default: generated)')
    .option('--key-name <name>', 'name of the first admin key')
    .option('--env <env>', 'key environment label, as in ae_<env>_... (default live)')
    .option('--json', 'print the project and its key as JSON')
    .action(action(io, (name: string, opts: { id?: string; keyName?: string; env?: string; json?: boolean }) => create(io, name, opts)));
}
