import Router from '@koa/router';
import type { Context } from 'koa';
import { NotFoundError } from '../../core/errors.js';
import { isUuid } from '../../core/model/agent.js';
import { AddMemberSchema, SetRoleSchema } from '../../core/model/user.js';
import type { Role } from '../../core/principal.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { auditFrom } from '../audit-context.js';

const projectNotFound = () => new NotFoundError('Project not found', 'PROJECT_NOT_FOUND');
const memberNotFound = () => new NotFoundError('Member not found', 'MEMBER_NOT_FOUND');

/**
 * /api/projects/{id}/members: people's roles in a project (docs/security.md, "Signing in"). A
 * project admin (an admin key, or a person with the admin role there) grants `admin`, `member`
 * or `viewer` to people who have signed in once, changes and takes roles away.
 */
export function membersRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/projects/:id/members' });
  const users = deps.metadata.users;
  const admin = requirePermission('projects:admin');

  /** The route's project: the caller's own (the one its permissions are for), and existing. */
  async function projectOf(ctx: Context): Promise<string> {
    const id = (ctx.params as { id: string }).id;
    if (id !== ctx.state.projectId || !(await deps.metadata.keys.getProject(id))) throw projectNotFound();
    return id;
  }

  /** Grants `role` and answers with the member; 200, or 201 for a new member. Audited as `member.added` or `role.changed`. */
  async function grant(ctx: Context, projectId: string, userId: string, role: Role): Promise<void> {
    const { member, previous } = await users.setRole(projectId, userId, role, ctx.state.principal.id);
    if (previous !== role) {
      const action = previous === null ? 'member.added' : 'role.changed';
      await deps.audit.record({ ...auditFrom(ctx), action, projectId, target: userId, details: { name: member.name, email: member.email, role, previous } });
    }
    ctx.status = previous === null ? 201 : 200;
    ctx.body = member;
  }

  router.get('/', operation('fetch members', 'metadata'), admin, async (ctx) => {
    ctx.body = { members: await users.members(await projectOf(ctx)) };
  });

  router.post('/', operation('add member', 'metadata'), admin, async (ctx) => {
    const projectId = await projectOf(ctx);
    const input = validate(AddMemberSchema, ctx.request.body);
    const user = input.user_id ? await users.get(input.user_id) : await users.findByEmail(input.email!);
    if (!user) throw new NotFoundError('No such user: a person must sign in once before they can be given a role', 'USER_NOT_FOUND');
    await grant(ctx, projectId, user.id, input.role);
  });

  router.put('/:userId', operation('update member', 'metadata'), admin, async (ctx) => {
    const projectId = await projectOf(ctx);
    const input = validate(SetRoleSchema, ctx.request.body);
    const user = isUuid(ctx.params.userId) ? await users.get(ctx.params.userId) : null;
    if (!user) throw new NotFoundError('No such user: a person must sign in once before they can be given a role', 'USER_NOT_FOUND');
    await grant(ctx, projectId, user.id, input.role);
  });

  router.delete('/:userId', operation('remove member', 'metadata'), admin, async (ctx) => {
    const projectId = await projectOf(ctx);
    const removed = isUuid(ctx.params.userId) ? await users.removeMember(projectId, ctx.params.userId) : null;
    if (!removed) throw memberNotFound();
    await deps.audit.record({ ...auditFrom(ctx), action: 'member.removed', projectId, target: ctx.params.userId, details: { role: removed } });
    ctx.status = 204;
  });

  return router;
}
