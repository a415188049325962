/**
 * Background work that must finish whatever happens to the process doing it (a deletion): one
 * try per id at a time in this process, and `resume` takes up every id the store still lists as
 * open (at start, every `everyMs`, and in any other process), so a try cut short is carried out
 * by the next one.
 */
export interface ResumableWork {
  /** Starts a try for this id unless one is under way here; resolves when that try ends. */
  start: (id: string) => Promise<void>;
  /** The try under way here for this id, if any. */
  running: (id: string) => Promise<void> | undefined;
  /** Starts a try for every open id. */
  resume: () => Promise<void>;
  /** Resolves when the tries under way in this process have ended. */
  idle: () => Promise<void>;
  /** Stops resuming by itself; the tries under way are not waited for (the next process resumes them). */
  close: () => Promise<void>;
}

export interface ResumableWorkOptions {
  /** One try; its failures are its own to handle (it resolves whatever happens). */
  run(id: string): Promise<void>;
  /** The ids still open, in the store. */
  open(): Promise<string[]>;
  /** Told when the open ids could not be read. */
  unread(err: unknown): void;
  /** Run `resume` on this period; 0: never by itself. */
  everyMs: number;
}

export function resumableWork(opts: ResumableWorkOptions): ResumableWork {
  const under = new Map<string, Promise<void>>();
  const timer = opts.everyMs > 0 ? setInterval(() => void resume(), opts.everyMs) : undefined;
  timer?.unref();

  function start(id: string): Promise<void> {
    const running = under.get(id);
    if (running) return running;
    const work = opts.run(id).finally(() => under.delete(id));
    under.set(id, work);
    return work;
  }

  async function resume(): Promise<void> {
    try {
      for (const id of await opts.open()) void start(id);
    } catch (err) {
      opts.unread(err);
    }
  }

  return {
    start,
    running: (id) => under.get(id),
    resume,
    async idle() {
      while (under.size) await Promise.all(under.values());
    },
    close() {
      if (timer) clearInterval(timer);
      return Promise.resolve();
    },
  };
}
