import fs from 'node:fs';
import path from 'node:path';

/**
 * The admin key the service's first start wrote to credentials.json. A module of its own, so a
 * load generator that needs it (bench/service.ts) does not load the service's code with it.
 */
export function readApiKey(dataDir: string): string | undefined {
  const file = path.join(dataDir, 'credentials.json');
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { api_key?: string }).api_key : undefined;
}
