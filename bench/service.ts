import { spawnServiceProcess, stopProcess, type ServiceProcess } from '../test/helpers/processes.js';
import { makeDataDir } from '../test/helpers/data-dir.js';
import { readApiKey } from '../test/helpers/credentials.js';

/** The service under benchmark: all roles, so it has an API and OTLP listeners. */
export type BenchService = ServiceProcess & {
  apiUrl: string;
  otlpHttpUrl: string;
  otlpGrpcAddress: string;
  /** What every bench request sends: the project, and the bootstrap key when the service wants credentials. */
  headers: Record<string, string>;
  stop(): Promise<void>;
};

/**
 * Environment every bench service gets (set by bench/run.ts from `--service-env` and
 * `--cpu-prof`): e.g. NODE_OPTIONS='--cpu-prof --cpu-prof-dir=DIR' profiles the service only.
 */
export const serviceEnv: Record<string, string> = {};

/** The service under test as its own process, so its CPU and RSS can be read from /proc; its data dir is removed when the bench invocation ends. */
export async function startBenchService(env: Record<string, string> = {}, dataDir = makeDataDir('agent-eval-bench-')): Promise<BenchService> {
  const svc = await spawnServiceProcess(dataDir, { ...serviceEnv, ...env });
  if (!svc.apiUrl || !svc.otlpHttpUrl || !svc.otlpGrpcAddress) throw new Error('bench service started without its listeners');
  // The data dir stays until the invocation ends (bench/run.ts: useInvocationTmpDir).
  const stop = () => stopProcess(svc, 120_000);
  const key = readApiKey(svc.dataDir);
  const headers: Record<string, string> = { 'x-project-id': svc.projectId, ...(env.AUTH_MODE === 'required' && key ? { 'x-api-key': key } : {}) };
  return { ...svc, apiUrl: svc.apiUrl, otlpHttpUrl: svc.otlpHttpUrl, otlpGrpcAddress: svc.otlpGrpcAddress, headers, stop };
}

/** One API call as the benches make it (the service's headers, a JSON body): its JSON answer, or an error naming the call unless the status is `status`. */
export async function benchApi<T>(svc: BenchService, method: string, pathname: string, body?: unknown, status = 200): Promise<T> {
  const res = await fetch(`${svc.apiUrl}${pathname}`, {
    method,
    headers: { ...svc.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== status) throw new Error(`${method} ${pathname}: ${res.status} ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}
