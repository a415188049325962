import pc from 'picocolors';

/**
 * What a command may touch outside itself: the environment and the standard streams, passed in
 * by main.ts (the entry point) so commands never read globals and tests can give their own.
 */
export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
}

export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Colours only on a terminal and never with NO_COLOR (https://no-color.org: set and not empty).
 * picocolors' own default also colours when `CI` is set, even into a pipe; a CLI's log in CI
 * must stay plain text.
 */
export function colorsFor(stream: NodeJS.WriteStream, env: CliIo['env']): Colors {
  const enabled = Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
  return pc.createColors(enabled);
}

/** A failure the CLI reports as one line on stderr, then exits with code 1. */
export class CliError extends Error {
  constructor(
    message: string,
    /** More lines under the message (a cause, a hint). */
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Writes a line to a stream. */
export function println(stream: NodeJS.WriteStream, line = ''): void {
  stream.write(`${line}\n`);
}

/** Prints `value` as indented JSON on stdout (the `--json` form of a command). */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** What a list command shows: the API's answer (for --json), its items, what they are (`suites`), and the total when a page may hold fewer. */
export interface Listing<T> {
  answer: unknown;
  items: T[];
  noun: string;
  total?: number;
  table: (c: Colors, items: T[]) => string;
}

/**
 * Prints a list command's answer: the API's answer as JSON with --json; otherwise `No <noun>
 * found`, or the items' table and, when the page holds fewer than the total, how many it shows.
 */
export function printListing<T>(io: CliIo, opts: { json?: boolean }, listing: Listing<T>): void {
  if (opts.json) return printJson(io, listing.answer);
  const c = colorsFor(io.stdout, io.env);
  const { items, noun, total } = listing;
  if (items.length === 0) return println(io.stdout, c.yellow(`No ${noun} found`));
  println(io.stdout, listing.table(c, items));
  if (total !== undefined && total > items.length) println(io.stdout, c.dim(`${items.length} of ${total} ${noun} (--limit for more)`));
}
