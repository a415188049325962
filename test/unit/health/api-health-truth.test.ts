import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HealthDeps } from '../../../api/routes/health.js';
import { createDataDirCheck } from '../../../core/os/data-dir-check.js';
import type { EngineStatus } from '../../../workflows/engine/engine-status.js';
import { getHealth } from './get-health.js';

// Health tells the truth (issue 27): the engine and the data dir count where the process has
// them, and every service that is not ok carries its reason.

const up = { ping: () => Promise.resolve(true) };
const down = { ping: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) };

const get = (deps: Partial<HealthDeps>) => getHealth({ config: { version: '1.0.0' }, auth: { mode: 'none' }, analytics: up, metadata: up, ...deps });

const ok = { check: () => Promise.resolve({ ok: true }) };

describe('GET /api/health tells the truth', () => {
  it('is healthy only when the stores, the engine and the data dir all work', async () => {
    const { status, body } = await get({ engine: up, engineStatus: () => ({ state: 'ready' }), dataDir: ok });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'healthy', services: { analytical_store: 'ok', metadata_store: 'ok', workflow_engine: 'ok', data_dir: 'ok' } });
    expect(body.reasons).toBeUndefined();
  });

  it('is degraded with the engine starting, and says what is under way', async () => {
    const starting: EngineStatus = { state: 'starting', detail: 'downloading the Temporal CLI v1.5.1 (step 1 of 2, 3s elapsed)' };
    const { status, body } = await get({ engine: up, engineStatus: () => starting, dataDir: ok });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'degraded', services: { workflow_engine: 'starting' } });
    expect(body.reasons?.workflow_engine).toContain('downloading the Temporal CLI');
  });

  it('is degraded when the engine cannot be provided, with how to fix it', async () => {
    const missing: EngineStatus = { state: 'unavailable', detail: 'no Temporal CLI: Go is not installed', fix: 'set TEMPORAL_CLI_PATH' };
    const { body } = await get({ engine: up, engineStatus: () => missing });
    expect(body).toMatchObject({ status: 'degraded', services: { workflow_engine: 'unavailable' } });
    expect(body.reasons?.workflow_engine).toBe('no Temporal CLI: Go is not installed; to fix: set TEMPORAL_CLI_PATH');
  });

  it('is degraded when a store is down, with the store error as the reason', async () => {
    const { status, body } = await get({ metadata: down });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'degraded', services: { metadata_store: 'unavailable' } });
    expect(body.reasons?.metadata_store).toContain('ECONNREFUSED');
  });

  it('is 503 unhealthy when nothing works', async () => {
    const { status, body } = await get({
      analytics: down,
      metadata: down,
      engine: down,
      engineStatus: () => ({ state: 'ready' }),
      dataDir: { check: () => Promise.resolve({ ok: false, reason: 'full' }) },
    });
    expect(status).toBe(503);
    expect(body.status).toBe('unhealthy');
  });

  it('is degraded when the data dir cannot take writes (a full disk), with the reason', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-disk-'));
    try {
      // More free space than any disk has: the check reports the data dir as full.
      const full = createDataDirCheck(dir, Number.MAX_SAFE_INTEGER);
      const { body } = await get({ dataDir: full });
      expect(body).toMatchObject({ status: 'degraded', services: { data_dir: 'unavailable' } });
      expect(body.reasons?.data_dir).toMatch(/MiB free, below/);
      expect((await createDataDirCheck(dir).check()).ok).toBe(true);
      // A data dir that is a file cannot be written under.
      const file = path.join(dir, 'not-a-dir');
      fs.writeFileSync(file, '');
      const broken = await createDataDirCheck(file).check();
      expect(broken.ok).toBe(false);
      expect(broken.reason).toMatch(/cannot write to/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
