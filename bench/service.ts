import { spawnServiceProcess, stopProcess, type ServiceProcess } from '../test/helpers/processes.js';
import { makeDataDir } from '../test/helpers/data-dir.js';

/** The service under benchmark: all roles, so it has an API and OTLP listeners. */
export type BenchService = ServiceProcess & { apiUrl: string; otlpHttpUrl: string; otlpGrpcAddress: string; stop(): Promise<void> };

/** The service under test as its own process, so its CPU and RSS can be read from /proc. */
export async function startBenchService(env: Record<string, string> = {}): Promise<BenchService> {
  const svc = await spawnServiceProcess(makeDataDir('agent-eval-bench-'), env);
  if (!svc.apiUrl || !svc.otlpHttpUrl || !svc.otlpGrpcAddress) throw new Error('bench service started without its listeners');
  return { ...svc, apiUrl: svc.apiUrl, otlpHttpUrl: svc.otlpHttpUrl, otlpGrpcAddress: svc.otlpGrpcAddress, stop: () => stopProcess(svc, 120_000) };
}
