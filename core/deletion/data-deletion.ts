import { randomUUID } from 'node:crypto';
import { SYSTEM_ACTOR, type AuditLog } from '../audit/audit-log.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import type { DataDeletionKind, DataDeletionView } from '../model/data-deletion.js';
import type { DataDeletionStore } from '../store/data-deletions.js';
import type { Subject } from '../store/trace-erasure.js';
import { resumableWork } from './resumable.js';

/**
 * Deleting data a client asked for (docs/api.md, "Deleting data"): one trace
 * (`DELETE /api/traces/{id}`), or every trace of an end user or a session (`POST /api/deletions`,
 * GDPR erasure). The request is recorded first (data_deletions), then carried out here, in the
 * background: the traces are found, removed from ClickHouse (spans, summaries, scores), then the
 * PostgreSQL rows about them (feedback, review items, online evaluations, judge calls; the links
 * of run results) in one transaction, and the deletion is marked completed. A try that fails waits
 * RETRY_IN_MS and is taken up again, by this process or any other (`resume`, at start and every
 * RESUME_EVERY_MS), under a lease, so an acknowledged deletion always completes. Every step can run
 * again without harm.
 *
 * Spans that arrive for a deleted trace after its deletion are a new trace with the same id: a
 * deletion removes what is stored when it runs.
 */
export interface DataDeletion {
  /** Records a deletion and starts it; resolves with the record as it is once started. */
  request(r: { projectId: string; kind: DataDeletionKind; target: string; requestedBy: { id: string; name: string | null } }): Promise<DataDeletionView>;
  /** A deletion of the project, as GET /api/deletions/{id} shows it. */
  get(projectId: string, id: string): Promise<DataDeletionView | null>;
  /** Resolves when the deletion has completed, or after `timeoutMs`: true when completed. */
  settled(id: string, timeoutMs: number): Promise<boolean>;
  /** Starts every deletion not finished and not held by another process. */
  resume(): Promise<void>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface DataDeletionDeps {
  store: DataDeletionStore;
  /** The ids of the project's traces naming this end user or session (trace-erasure.ts). */
  tracesOf(projectId: string, subject: Subject, value: string): Promise<string[]>;
  /** Removes these traces' rows from the analytical store; the rows removed per table. */
  eraseTraces(projectId: string, traceIds: readonly string[]): Promise<Record<string, number>>;
  audit: Pick<AuditLog, 'record'>;
  logger: Logger;
  resumeEveryMs?: number;
}

export const RESUME_EVERY_MS = 60_000;
/** How long one try holds a deletion before another process may take it (a process that died). */
const LEASE_MS = 10 * 60_000;
const RETRY_IN_MS = 30_000;

export function createDataDeletion(deps: DataDeletionDeps): DataDeletion {
  async function carryOut(id: string): Promise<void> {
    if (!(await deps.store.claim(id, LEASE_MS))) return;
    const d = await deps.store.load(id);
    if (!d) return;
    try {
      const traceIds = d.kind === 'trace' ? [d.target] : await deps.tracesOf(d.project_id, d.kind, d.target);
      const analytics = await deps.eraseTraces(d.project_id, traceIds);
      const metadata = await deps.store.deleteMetadata(d.project_id, traceIds, d.kind === 'user' ? d.target : null);
      const rows = { analytics, metadata };
      await deps.store.complete(id, traceIds.length, rows);
      deps.logger.info({ deletion: id, project_id: d.project_id, kind: d.kind, traces: traceIds.length, rows }, 'data deleted');
      await deps.audit.record({
        actor: SYSTEM_ACTOR,
        action: 'data.deleted',
        projectId: d.project_id,
        target: id,
        details: { kind: d.kind, traces_deleted: traceIds.length, rows_deleted: rows, completed: true },
      });
    } catch (err) {
      deps.logger.error({ err, deletion: id }, `data deletion not finished, will be retried: ${errorMessage(err)}`);
      await deps.store.retryLater(id, errorMessage(err), RETRY_IN_MS).catch(() => undefined);
    }
  }

  // Not waited for on close: a deletion cut short is resumed by the next process to start (or another one).
  const work = resumableWork({
    run: (id) => carryOut(id).catch((err: unknown) => deps.logger.error({ err, deletion: id }, `data deletion not started: ${errorMessage(err)}`)),
    open: () => deps.store.open(),
    unread: (err) => deps.logger.warn({ err }, `open data deletions not read: ${errorMessage(err)}`),
    everyMs: deps.resumeEveryMs ?? RESUME_EVERY_MS,
  });

  return {
    async request(r) {
      const created = await deps.store.create({ id: randomUUID(), ...r });
      void work.start(created.id);
      return created;
    },
    get: (projectId, id) => deps.store.get(projectId, id),
    async settled(id, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await work.running(id);
        const d = await deps.store.load(id);
        if (d?.status === 'completed') return true;
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, Math.min(200, Math.max(0, deadline - Date.now()))));
      }
    },
    resume: work.resume,
    idle: work.idle,
    close: work.close,
  };
}
