import fs from 'node:fs';
import Router from '@koa/router';
import { BackupBusyError, type BackupSource } from '../../core/backup/create-backup.js';
import { AppError, ConflictError } from '../../core/errors.js';
import { WritesInFlightError } from '../../core/store/write-gate.js';
import type { ApiDeps } from '../deps.js';
import { auditFrom } from '../audit-context.js';
import { operation } from '../middleware/errors.js';
import { requireServerAdmin } from '../middleware/permission.js';

/**
 * POST /api/admin/backup (server admins): a backup of both stores of this embedded install as of
 * one moment, answered as the archive itself (application/gzip, a .tar.gz with manifest.json
 * first; the
 * X-Agent-Eval-Backup header has its time, version and rows per table as base64 JSON). `agent-eval backup
 * --out FILE` calls it (docs/operations.md, "Backup and restore").
 */
export function adminBackupRouter(deps: Pick<ApiDeps, 'audit'> & { backup?: BackupSource }): Router {
  const router = new Router({ prefix: '/api/admin' });

  router.post('/backup', operation('back up stores'), requireServerAdmin(), async (ctx) => {
    if (!deps.backup) {
      throw new AppError(
        409,
        'BACKUP_NOT_AVAILABLE',
        'This service does not own its stores (CLICKHOUSE_URL is set): back up ClickHouse and PostgreSQL themselves (docs/deployment.md, "Backup and restore")',
      );
    }
    let archive;
    try {
      archive = await deps.backup.create();
    } catch (err) {
      if (err instanceof BackupBusyError) throw new ConflictError(err.message, 'BACKUP_IN_PROGRESS');
      if (err instanceof WritesInFlightError)
        throw new AppError(503, 'BACKUP_WRITES_IN_FLIGHT', `${err.message}: the backup did not start and writes went on; try again later`);
      throw err;
    }
    const { manifest } = archive;
    const counts = Object.fromEntries([...manifest.clickhouse.tables, ...manifest.postgres.tables].map((t) => [t.name, t.rows]));
    await deps.audit.record({
      ...auditFrom(ctx),
      action: 'data.exported',
      target: 'backup',
      details: { kind: 'backup', created_at: manifest.created_at, rows: counts },
    });
    const stream = fs.createReadStream(archive.file);
    stream.once('close', () => archive.dispose());
    ctx.status = 200;
    ctx.type = 'application/gzip';
    ctx.length = fs.statSync(archive.file).size;
    ctx.set('content-disposition', `attachment; filename="agent-eval-backup-${manifest.created_at.replace(/[:.]/g, '-')}.tar.gz"`);
    ctx.set(
      'x-agent-eval-backup',
      Buffer.from(JSON.stringify({ created_at: manifest.created_at, agent_eval_version: manifest.agent_eval_version, rows: counts })).toString('base64'),
    );
    ctx.body = stream;
  });

  return router;
}
