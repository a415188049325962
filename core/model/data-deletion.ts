import { z } from 'zod';
import { asId } from './ids.js';

/** A user or session id as spans carry them in attributes: an id (no control characters), up to 256 characters. */
const SubjectId = asId(z.string().max(256).trim().min(1));

/** What a deletion removes: one trace, or every trace of an end user or of a session (docs/api.md, "Deleting data"). */
export type DataDeletionKind = 'trace' | 'user' | 'session';

/** A deletion as the API shows it (GET /api/deletions/{id}). */
export interface DataDeletionView {
  id: string;
  project_id: string;
  kind: DataDeletionKind;
  /** The trace id, user id or session id. */
  target: string;
  /** `pending` (waiting, or waiting to try again after `last_error`), `running`, `completed`. */
  status: 'pending' | 'running' | 'completed';
  requested_by: { id: string; name: string | null };
  attempts: number;
  last_error: string | null;
  traces_deleted: number | null;
  /** Rows removed per store and table: `{analytics: {spans: 12, ...}, metadata: {feedback: 1, ...}}`. */
  rows_deleted: Record<string, Record<string, number>> | null;
  created_at: string;
  completed_at: string | null;
}

/** POST /api/deletions: exactly one of `user_id` and `session_id`. */
export const DataErasureBodySchema = z
  .object({ user_id: SubjectId.optional(), session_id: SubjectId.optional() })
  .strict()
  .superRefine((b, ctx) => {
    if ((b.user_id === undefined) === (b.session_id === undefined))
      ctx.addIssue({ code: 'custom', path: ['user_id'], message: 'give exactly one of user_id and session_id' });
  });
