import type { Command } from 'commander';
import { registerBackup } from './commands/backup.js';
import { registerCompare } from './commands/compare.js';
import { registerDoctor } from './commands/doctor.js';
import { registerExport } from './commands/export.js';
import { registerKeys } from './commands/keys.js';
import { registerLogin } from './commands/login.js';
import { registerProjects } from './commands/projects.js';
import { registerRun } from './commands/run.js';
import { registerRuns } from './commands/runs.js';
import { registerSuites } from './commands/suites.js';
import { registerMcp } from './commands/mcp.js';
import type { CliIo } from './io.js';

export type { CliIo } from './io.js';

/**
 * The client commands of `agent-eval` (docs/cli.md), beside `serve` and `migrate`: each group
 * registers itself on the program; they reach the service only through the SDK's client.
 */
export function registerCliCommands(program: Command, io: CliIo): void {
  registerRun(program, io);
  registerRuns(program, io);
  registerCompare(program, io);
  registerSuites(program, io);
  registerProjects(program, io);
  registerKeys(program, io);
  registerLogin(program, io);
  registerBackup(program, io);
  registerExport(program, io);
  registerDoctor(program, io);
  registerMcp(program, io);
}
