import { ServiceUnavailableError } from '../../core/errors.js';
import type { RunEngine } from '../client.js';

/**
 * Where the workflow engine of this process is: `starting` while it is prepared in the
 * background (the CLI downloaded or built, the dev server started), `ready` once the run engine
 * exists (a later outage shows in its ping), `unavailable` when it cannot be prepared here.
 */
export type EngineState = 'starting' | 'ready' | 'unavailable';

export interface EngineStatus {
  state: EngineState;
  /** What is under way (`starting`) or what failed (`unavailable`). */
  detail?: string;
  /** How to provide the engine (`unavailable`). */
  fix?: string;
}

/** Retry-After while the engine is being prepared: a download takes about a minute, a Go build minutes. */
export const ENGINE_STARTING_RETRY_AFTER_SECONDS = 30;
/** Retry-After when the engine cannot be prepared: nothing changes until an operator acts. */
export const ENGINE_MISSING_RETRY_AFTER_SECONDS = 300;

/** 503 `Workflow engine service unavailable` (SPEC) whose details say the engine is starting, or how to provide it. */
export class EngineNotReadyError extends ServiceUnavailableError {
  constructor(status: EngineStatus) {
    const text =
      status.state === 'starting'
        ? `The workflow engine is starting${status.detail ? ` (${status.detail})` : ''}; tracing works meanwhile, retry shortly`
        : `The workflow engine is not available: ${status.detail ?? 'not prepared'}. To fix: ${status.fix ?? 'see `agent-eval doctor`'}`;
    super('workflow', new Error(text));
    // The base class types its delay as the stores' constant; this one's is longer (a download, a build).
    (this as unknown as { retryAfterSeconds: number }).retryAfterSeconds =
      status.state === 'starting' ? ENGINE_STARTING_RETRY_AFTER_SECONDS : ENGINE_MISSING_RETRY_AFTER_SECONDS;
  }
}

export interface EngineGate {
  /** The run engine for the API and health: every call is a 503 EngineNotReadyError until ready(). */
  engine: RunEngine;
  status(): EngineStatus;
  /** Progress while starting (logged by the caller; shown in health and 503s). */
  step(detail: string): void;
  ready(engine: RunEngine): void;
  unavailable(detail: string, fix: string): void;
}

/** The engine handle the service has at once, filled in when the background start finishes. */
export function createEngineGate(): EngineGate {
  let status: EngineStatus = { state: 'starting', detail: 'preparing the workflow engine' };
  let current: RunEngine | undefined;
  const live = (): RunEngine => {
    if (!current) throw new EngineNotReadyError(status);
    return current;
  };
  const engine: RunEngine = {
    startRun: (run) => live().startRun(run),
    pause: (id) => live().pause(id),
    resume: (id) => live().resume(id),
    cancel: (id) => live().cancel(id),
    cancelCase: (id, index) => live().cancelCase(id, index),
    approve: (id, decision) => live().approve(id, decision),
    progress: (id) => live().progress(id),
    approvals: (id) => live().approvals(id),
    ping: () => (current ? current.ping() : Promise.resolve(false)),
    close: () => current?.close() ?? Promise.resolve(),
  };
  return {
    engine,
    status: () => status,
    step(detail) {
      if (status.state === 'starting') status = { state: 'starting', detail };
    },
    ready(e) {
      current = e;
      status = { state: 'ready' };
    },
    unavailable(detail, fix) {
      status = { state: 'unavailable', detail, fix };
    },
  };
}
