import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import { openStores } from './stores.js';

/** `agent-eval migrate`: opening the stores applies pending migrations; then close them. */
export async function runMigrations(config: Config, logger: Logger): Promise<void> {
  const stores = await openStores(config, logger);
  await stores.close();
}
