import Router from '@koa/router';
import { z } from 'zod';
import { NotFoundError } from '../../core/errors.js';
import { Timestamp } from '../../core/model/ingest-body.js';
import { keysetCursorParam } from '../../core/model/keyset-cursor.js';
import { MAX_SESSION_ID_CHARS } from '../../core/model/trace-session-ids.js';
import { MAX_SESSION_PAGE } from '../../core/model/trace-session.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { QueryBoolean } from './query-boolean.js';
import { timeBound } from './page-query.js';

/** GET /api/sessions: newest activity first, keyset paging only (sessions grow while one pages). */
export const SessionListQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(MAX_SESSION_PAGE).default(50),
    user_id: z.string().min(1).max(MAX_SESSION_ID_CHARS).optional(),
    start_time: Timestamp.optional(),
    end_time: Timestamp.optional(),
    has_errors: QueryBoolean.optional(),
    score_name: z.string().min(1).max(256).optional(),
    score_below: z.coerce.number().min(0).max(1).optional(),
    cursor: keysetCursorParam('next_cursor'),
  })
  .superRefine((q, ctx) => {
    // A threshold needs the score it applies to, and the other way round (as GET /api/traces).
    if (q.score_name !== undefined && q.score_below === undefined)
      ctx.addIssue({ code: 'custom', path: ['score_below'], message: 'is required with score_name' });
    if (q.score_below !== undefined && q.score_name === undefined)
      ctx.addIssue({ code: 'custom', path: ['score_name'], message: 'is required with score_below' });
  });

/** Conversations (sessions) of the project's traces (docs/api.md, "Sessions"). */
export function traceSessionsRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/sessions' });

  router.get('/', operation('fetch sessions'), requirePermission('traces:read'), async (ctx) => {
    const q = validate(SessionListQuerySchema, ctx.query);
    ctx.body = await deps.analytics.sessions.listSessions(ctx.state.projectId, {
      limit: q.limit,
      userId: q.user_id,
      startTime: timeBound(q.start_time),
      endTime: timeBound(q.end_time),
      hasErrors: q.has_errors,
      scoreBelow: q.score_name !== undefined && q.score_below !== undefined ? { name: q.score_name, value: q.score_below } : undefined,
      cursor: q.cursor && { endMs: q.cursor.startMs, sessionId: q.cursor.id },
    });
  });

  router.get('/:sessionId', operation('fetch session'), requirePermission('traces:read'), async (ctx) => {
    const sessionId = ctx.params.sessionId;
    const session = sessionId.length <= MAX_SESSION_ID_CHARS ? await deps.analytics.sessions.getSession(ctx.state.projectId, sessionId) : null;
    if (!session) throw new NotFoundError(`Session with ID '${sessionId.slice(0, MAX_SESSION_ID_CHARS)}' not found`, 'SESSION_NOT_FOUND');
    ctx.body = session;
  });

  return router;
}
