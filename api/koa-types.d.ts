import 'koa';
import type { Permission, Principal } from '../core/principal.js';
import type { Operation } from './middleware/errors.js';

declare module 'koa' {
  interface Request {
    /** Set by the jsonBody middleware: the parsed JSON body, not yet validated. */
    body?: unknown;
  }

  /** The typed request state every route reads (Koa's `ctx.state`). */
  interface DefaultState {
    /** Set by the authenticate middleware for every /api/* route behind it. */
    projectId: string;
    principal: Principal;
    permissions: ReadonlySet<Permission>;
    /** The projects the credential may reach; null: any (`AUTH_MODE=none`). */
    reach: readonly string[] | null;
    /** Where the request came from (core/auth/client-address.ts): audit entries record it. */
    clientAddress?: string;
    /** Set by `operation()`: what the route does, for the SPEC's `Failed to <verb> <object>`. */
    operation?: Operation;
  }
}
