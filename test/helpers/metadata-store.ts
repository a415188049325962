import { createMetadataStore, createPool, type MetadataStore } from '../../core/store/postgres/metadata-store.js';
import { servicePostgresUrl } from './service-postgres.js';

/**
 * A second connection to a test service's embedded PostgreSQL, for tests of store calls the API
 * does not expose (the worker's `agents.resolveForCall`, a run reading a deleted suite's version).
 */
export function openServiceMetadata(dataDir: string): MetadataStore {
  return createMetadataStore(createPool(servicePostgresUrl(dataDir)));
}
