import type { Command } from 'commander';

/**
 * How the `agent-eval` process ends when its output or its command line goes wrong: a line, never
 * a stack trace (SPEC: the CLI reports errors as messages, exit code 1).
 */

/**
 * A reader that stops early (`agent-eval runs results <id> | head`) closes the pipe: the next
 * write fails with EPIPE, emitted on the stream, which Node throws as an uncaught error with its
 * stack. The output is no longer wanted, so the command ends quietly, as `cat` does; any other
 * failure of a standard stream ends it with one line and exit code 1.
 */
export function endQuietlyOnClosedOutput(streams: readonly NodeJS.WriteStream[], exit: (code: number) => void = (code) => process.exit(code)): void {
  for (const stream of streams) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') return exit(0);
      try {
        process.stderr.write(`agent-eval: cannot write its output: ${err.message}\n`);
      } catch {
        // stderr is gone too: nothing left to tell.
      }
      exit(1);
    });
  }
}

/**
 * The command a command line names, when it names one the program does not have. `serve` is the
 * default command, so commander would take `agent-eval stauts` as `serve stauts` and answer
 * "too many arguments for 'serve'"; this says what was meant instead. Options (`--version`,
 * `-h`) and no arguments at all are left to commander.
 */
export function unknownCommand(program: Command, args: readonly string[]): string | null {
  const first = args[0];
  if (first === undefined || first.startsWith('-')) return null;
  const known = program.commands.flatMap((c) => [c.name(), ...c.aliases()]);
  if (known.includes(first) || first === 'help') return null;
  const names = program.commands.map((c) => c.name()).sort();
  return `agent-eval: unknown command '${first}'. Commands: ${names.join(', ')} (agent-eval --help tells what each does)`;
}
