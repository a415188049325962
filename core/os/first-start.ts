/**
 * The first start of a supervised child on ports probed free just before: another process may
 * take one between the probe and the child's bind, so a start that fails that way is tried again
 * on fresh ports, up to `attempts` starts. Restarts (createRestarter) keep the ports clients
 * already know and do not come here.
 */
export async function firstStart(opts: {
  attempts: number;
  start(): Promise<void>;
  /** Whether a failed start may be a port taken meanwhile (else it is thrown at once). */
  portTaken(err: unknown): boolean;
  /** Chooses fresh ports for the next attempt. */
  choosePorts(attempt: number): Promise<void>;
}): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await opts.start();
    } catch (err) {
      if (attempt >= opts.attempts || !opts.portTaken(err)) throw err;
      await opts.choosePorts(attempt);
    }
  }
}
