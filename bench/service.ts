import { spawnService, waitForExit, type ChildService } from '../test/helpers/server.js';
import { makeDataDir } from '../test/helpers/data-dir.js';

/** The service under test as its own process, so its CPU and RSS can be read from /proc. */
export async function startBenchService(env: Record<string, string> = {}): Promise<ChildService & { stop(): Promise<void> }> {
  const svc = await spawnService(makeDataDir('agent-eval-bench-'), env);
  return {
    ...svc,
    async stop() {
      svc.child.kill('SIGTERM');
      await waitForExit(svc.child, 120_000).catch(() => svc.child.kill('SIGKILL'));
    },
  };
}
