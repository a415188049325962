import { onDestroy } from 'svelte';
import { ApiError, client, failureWords } from './api.js';
import { pollWhileVisible, type Poller } from './poll.js';
import type { AgentEvalApi } from '../../../sdk/browser.js';

/** Loads a resource with the typed client; `signal` is the load's own (aborted by the next load). */
export type Loader<T, A> = (api: AgentEvalApi, arg: A, signal: AbortSignal) => Promise<T>;

export interface ResourceOptions {
  /** Forget the data shown when a load fails (default: keep it, under the error). */
  clearOnError?: boolean;
  /** The words for a failure (default: the error's message, ApiError's being the API's own). */
  describe?: (err: unknown) => string;
}

/** What a page shows of a resource (LoadState reads this). */
export interface ResourceState<T> {
  readonly data: T | null;
  readonly loading: boolean;
  readonly error: string | null;
  readonly unauthorized: boolean;
  reload(): Promise<boolean>;
}

const errorText = (err: unknown): string => failureWords(err);

/**
 * One abortable load of a page's data, the state every page showed by hand before: the data,
 * whether a load runs, its error in words and whether it was a 401 (the session ended: sign in).
 * A new load aborts the one still running, whose answer is then dropped.
 */
export class Resource<T, A = void> implements ResourceState<T> {
  /** The last data loaded (not deeply reactive: a page that changes it assigns a new value). */
  data = $state.raw<T | null>(null);
  loading = $state(true);
  error = $state<string | null>(null);
  /** The HTTP status of the failed load (0: the service did not answer), null when none failed. */
  status = $state<number | null>(null);
  #controller: AbortController | null = null;
  #arg: A | undefined;

  constructor(
    private readonly loader: Loader<T, A>,
    private readonly options: ResourceOptions = {},
  ) {}

  /**
   * Loads with `arg`, aborting a load still running. Resolves true when this load's data is
   * shown, false when it failed or a newer load overtook it. `quiet`: a refresh that leaves the
   * error shown as it is and says nothing when it fails (a poll).
   */
  async load(arg: A, opts: { quiet?: boolean } = {}): Promise<boolean> {
    this.#controller?.abort();
    const c = new AbortController();
    this.#controller = c;
    this.#arg = arg;
    if (!opts.quiet) {
      this.loading = true;
      this.error = null;
      this.status = null;
    }
    try {
      const value = await this.loader(client({ signal: c.signal }), arg, c.signal);
      if (c.signal.aborted) return false;
      this.data = value;
      this.error = null;
      return true;
    } catch (err) {
      if (c.signal.aborted || opts.quiet) return false;
      if (this.options.clearOnError) this.data = null;
      this.status = err instanceof ApiError ? err.status : null;
      this.error = (this.options.describe ?? errorText)(err);
      return false;
    } finally {
      if (!c.signal.aborted) this.loading = false;
    }
  }

  /** The failed load was refused for the credentials (the session ended): sign in again. */
  get unauthorized(): boolean {
    return this.status === 401;
  }

  /** The last load again (a Retry button). */
  reload(): Promise<boolean> {
    return this.load(this.#arg as A);
  }

  /** Aborts a load still running (the page is left). */
  abort(): void {
    this.#controller?.abort();
  }
}

/**
 * A write a page makes (create, revoke, delete...): `busy` while it runs, and its failure in
 * words until the next one starts.
 */
export class Action {
  busy = $state(false);
  error = $state<string | null>(null);
  /** What the last one did, in words (the text `work` resolved with). */
  done = $state<string | null>(null);

  constructor(private readonly describe: (err: unknown) => string = errorText) {}

  /** Runs `work`; resolves true when it succeeded. */
  async run(work: () => Promise<unknown>): Promise<boolean> {
    this.busy = true;
    this.error = null;
    this.done = null;
    try {
      const said = await work();
      if (typeof said === 'string') this.done = said;
      return true;
    } catch (err) {
      this.error = this.describe(err);
      return false;
    } finally {
      this.busy = false;
    }
  }
}

/** A {@link Resource} of a component: its load is aborted when the component goes. */
export function resource<T, A = void>(loader: Loader<T, A>, options?: ResourceOptions): Resource<T, A> {
  const r = new Resource<T, A>(loader, options);
  onDestroy(() => r.abort());
  return r;
}

/**
 * A settings page's list of the session's project (its API keys, its members): loaded, and loaded
 * again when `projectId()` changes, and the writes made on it (`action`). `error` is the last
 * write's failure, else the list's; `load(id)` reads the list again after a write.
 */
export function projectList<T>(loader: Loader<T, string>, projectId: () => string | null, describe: (err: unknown) => string) {
  const list = resource(loader, { clearOnError: true, describe });
  const action = new Action(describe);
  const load = (id: string | null) => (id ? list.load(id) : undefined);
  $effect(() => {
    void load(projectId());
  });
  return {
    list,
    action,
    load,
    get error() {
      return action.error ?? list.error;
    },
  };
}

/** The one poller of a live page (lib/poll.ts), stopped when the component goes. */
export function poll(tick: () => Promise<void> | void, ms: number, active?: () => boolean): Poller {
  const p = pollWhileVisible(tick, ms, active);
  onDestroy(() => p.stop());
  return p;
}
