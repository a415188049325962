import { afterAll, beforeAll, expect } from 'vitest';
import type { FieldIssue } from '../../core/errors.js';
import { startTestApi, startTestService, type TestApi, type TestService } from './server.js';
import { startTestAgent, type AgentBehaviour, type TestAgent } from './test-agent.js';

/**
 * The test service of a test file, as most API tests want it: started in `beforeAll`, stopped in
 * `afterAll`; `seed`, when given, runs once it is up. The object returned stands for the service from the moment `beforeAll` has started
 * it (`svc.api(...)`, `svc.apiUrl`, `svc.keyFor(...)`); touching it before then throws.
 */
export function useTestService(
  env: Record<string, string> = {},
  opts: { start?: () => Promise<TestService>; seed?: (svc: TestService) => Promise<void>; timeout?: number } = {},
): TestService {
  return useStarted(opts.start ?? (() => startTestService(env)), opts, 'the test service');
}

/**
 * useTestService with a test agent that answers as `behaviour` says, registered with the service
 * as `agentName` once both are up; the agent is closed after the service has stopped.
 */
export function useServiceWithAgent(behaviour: AgentBehaviour, agentName: string, env: Record<string, string> = {}): { svc: TestService; agent: TestAgent } {
  let agent: TestAgent | undefined;
  beforeAll(async () => {
    agent = await startTestAgent(behaviour);
  });
  afterAll(async () => {
    await agent?.close();
  });
  const svc = useTestService(env, {
    seed: async (started) => {
      await expectJson(await started.api('/api/agents', { method: 'POST', json: { name: agentName, endpoint: agent!.url } }), 201);
    },
  });
  return { svc, agent: startedLater(() => agent, 'the test agent') };
}

/**
 * useTestService for the service's API alone, in this process (startTestApi): for tests of API
 * routes over the real stores that need no workflow engine, worker or receiver ports.
 */
export function useTestApi(env: Record<string, string> = {}, opts: { seed?: (api: TestApi) => Promise<void>; timeout?: number } = {}): TestApi {
  return useStarted(() => startTestApi(env), opts, 'the test API');
}

function useStarted<T extends { stop(): Promise<void> }>(
  start: () => Promise<T>,
  opts: { seed?: (started: T) => Promise<void>; timeout?: number },
  what: string,
): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
    await opts.seed?.(started);
  }, opts.timeout);
  afterAll(async () => {
    await started?.stop();
  });
  return startedLater(() => started, what);
}

/**
 * An object that forwards every property to what `get` returns once it is there (methods bound
 * to it): for values a `beforeAll` makes, to be named at the top of a test file.
 */
export function startedLater<T extends object>(get: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const value = get();
      if (value === undefined) {
        // Not a promise: `await` and vitest's printing look for `then` without wanting an error.
        if (key === 'then') return undefined;
        throw new Error(`${what} is used before beforeAll started it (property ${String(key)})`);
      }
      const field = Reflect.get(value, key) as unknown;
      return typeof field === 'function' ? (field as (...args: unknown[]) => unknown).bind(value) : field;
    },
  });
}

/** POSTs `body` to `pathname` through `svc`'s API as project `project`; fails, showing the answer, unless it is 201. */
export async function postCreated(svc: Pick<TestApi, 'api'>, pathname: string, project: string, body: unknown): Promise<void> {
  const res = await svc.api(pathname, { method: 'POST', json: body, project });
  const text = await res.text();
  expect(res.status, `POST ${pathname}: ${text.slice(0, 1000)}`).toBe(201);
}

/** The body of an API error (docs/SPEC.md, "Errors"); `details` is a list of field issues on a 422. */
export interface ErrorBody<Details = FieldIssue[] | string> {
  error: string;
  code: string;
  message: string;
  status: number;
  details: Details;
}

/** An error body whose `details` are field issues (a 422's). */
export type ValidationErrorBody = ErrorBody<FieldIssue[]>;

/** Requests to `svc` as its default project's admin, and their answers read with their status asserted. */
export function apiCaller(svc: TestApi) {
  return {
    /** GET `path`, or POST `json` there when given; as `project` when given. */
    call: (path: string, json?: unknown, project?: string): Promise<Response> =>
      svc.api(path, json === undefined ? { project } : { method: 'POST', json, project }),
    /** The JSON body of `res`, asserting its status first (the body is the failure's message). */
    ok: expectJson,
  };
}

/** The JSON body of `res`, asserting its status first (the body is the failure's message). */
export async function expectJson<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}
