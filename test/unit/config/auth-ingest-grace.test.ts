import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.js';

/** AUTH_INGEST_GRACE_MS (docs/configuration.md; docs/security.md, "Key checks off the hot path"). */
describe('AUTH_INGEST_GRACE_MS', () => {
  it('defaults to 15 minutes, takes 0 (no grace) up to 24 h, and refuses anything else', () => {
    expect(loadConfig({}).auth.ingestGraceMs).toBe(900_000);
    expect(loadConfig({ AUTH_INGEST_GRACE_MS: '0' }).auth.ingestGraceMs).toBe(0);
    expect(loadConfig({ AUTH_INGEST_GRACE_MS: '86400000' }).auth.ingestGraceMs).toBe(86_400_000);
    for (const bad of ['-1', '86400001', '1.5', 'soon']) expect(() => loadConfig({ AUTH_INGEST_GRACE_MS: bad }), bad).toThrow(/AUTH_INGEST_GRACE_MS/);
  });
});
