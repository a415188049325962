import fs from 'node:fs';
import path from 'node:path';
import { createMetadataStore, createPool, type MetadataStore } from '../../core/store/postgres/metadata-store.js';

/**
 * A second connection to a test service's embedded PostgreSQL, for tests of store calls the API
 * does not expose (the worker's `agents.resolveForCall`, a run reading a deleted suite's version).
 * The port is the fourth line of the running postmaster's `postmaster.pid`.
 */
export function openServiceMetadata(dataDir: string): MetadataStore {
  const root = path.join(dataDir, 'postgres');
  const port = fs
    .readFileSync(path.join(root, 'data', 'postmaster.pid'), 'utf8')
    .split('\n')[3]
    .trim();
  const { password } = JSON.parse(fs.readFileSync(path.join(root, 'credentials.json'), 'utf8')) as { password: string };
  return createMetadataStore(createPool(`postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`));
}
