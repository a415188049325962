import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import { startDevServer } from '../workflows/engine/dev-server.js';

export interface WorkflowEngineEndpoint {
  address: string;
  namespace: string;
  /** The embedded dev server's ports on 127.0.0.1 (none for an external cluster: TEMPORAL_ADDRESS is in the config). */
  ports: number[];
  /** Stops the embedded dev server; nothing for an external cluster. */
  stop(): Promise<void>;
}

/**
 * Where the workflow engine is: TEMPORAL_ADDRESS (an external cluster), else an embedded
 * Temporal dev server this process starts and stops.
 */
export async function openWorkflowEngine(config: Config, logger: Logger): Promise<WorkflowEngineEndpoint> {
  const { temporal } = config;
  if (temporal.address) return { address: temporal.address, namespace: temporal.namespace, ports: [], stop: () => Promise.resolve() };
  const server = await startDevServer({ dataDir: config.dataDir, cliPath: temporal.cliPath, cacheDir: config.cacheDir, namespace: temporal.namespace, logger });
  return { address: server.address, namespace: temporal.namespace, ports: server.ports, stop: () => server.stop() };
}
