import Router from '@koa/router';
import { z } from 'zod';
import { NotFoundError } from '../../core/errors.js';
import { pgText } from '../../core/model/pg-json.js';
import {
  LabelName,
  parseCreatePrompt,
  parsePromptUpdate,
  PromptVersionNumber,
  SetLabelsSchema,
  type PromptLookup,
  type PromptSelector,
} from '../../core/model/prompt.js';
import { RenderRequestSchema, renderPrompt } from '../../core/model/prompt-render.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation, type Operation } from '../middleware/errors.js';
import { readWriteGuards } from '../middleware/permission.js';
import { pageQuery } from './page-query.js';
import { orNotFound } from './or-not-found.js';

/** Largest page of GET /api/prompts, of a prompt's versions and of its traces. */
export const MAX_PROMPT_PAGE = 1000;

export const ListQuerySchema = pageQuery(MAX_PROMPT_PAGE).extend({ name: pgText(256).min(1).optional(), label: LabelName.optional() });

/** `?version=N` or `?label=x` (not both); neither is the latest version. */
export const SelectorQuerySchema = z
  .object({
    version: z.coerce.number().pipe(PromptVersionNumber).optional(),
    label: LabelName.optional(),
  })
  .refine((q) => q.version === undefined || q.label === undefined, { path: ['label'], message: 'give either version or label, not both' });

export const TracesQuerySchema = pageQuery(MAX_PROMPT_PAGE).and(SelectorQuerySchema);

/** The SPEC's 404 for a prompt the project does not have; `ref` is the path's id or name as given. */
function promptNotFound(ref: string): NotFoundError {
  return new NotFoundError(`Prompt "${ref}" not found`, 'PROMPT_NOT_FOUND');
}

/** The value of a lookup, or the 404 for what it did not find. */
function found<T>(lookup: PromptLookup<T>, ref: string, select: PromptSelector = {}): T {
  if (lookup.found) return lookup.value;
  if (lookup.missing === 'version') return throwNotFound(`Prompt "${ref}" has no version ${select.version}`, 'PROMPT_VERSION_NOT_FOUND');
  if (lookup.missing === 'label') return throwNotFound(`Prompt "${ref}" has no label "${select.label}"`, 'PROMPT_LABEL_NOT_FOUND');
  throw promptNotFound(ref);
}

function throwNotFound(message: string, code: string): never {
  throw new NotFoundError(message, code);
}

/** The path's `:id`: a prompt's id or its name. */
function ref(params: Record<string, string | undefined>): string {
  return params.id ?? '';
}

/**
 * /api/prompts: versioned prompt templates (docs/prompts.md). `:id` is a prompt's id or its
 * name. Reads need `prompts:read`, writes `prompts:write`; another project's prompt is a 404.
 */
export function promptsRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/prompts' });
  const prompts = deps.metadata.prompts;
  const { read, write } = readWriteGuards('prompts');

  router.get('/', read, operation('list prompts', 'metadata'), async (ctx) => {
    const q = validate(ListQuerySchema, ctx.query);
    ctx.body = await prompts.list(ctx.state.projectId, q);
  });

  router.post('/', write, operation('create prompt', 'metadata'), async (ctx) => {
    const input = parseCreatePrompt(ctx.request.body);
    ctx.body = await prompts.create(ctx.state.projectId, input);
    ctx.status = 201;
  });

  router.get('/:id', read, operation('get prompt', 'metadata'), async (ctx) => {
    const select = validate(SelectorQuerySchema, ctx.query);
    ctx.body = found(await prompts.get(ctx.state.projectId, ref(ctx.params), select), ref(ctx.params), select);
  });

  router.put('/:id', write, operation('update prompt', 'metadata'), async (ctx) => {
    const current = found(await prompts.get(ctx.state.projectId, ref(ctx.params)), ref(ctx.params));
    const input = parsePromptUpdate(ctx.request.body, current);
    ctx.body = orNotFound(await prompts.update(ctx.state.projectId, current.id, input), () => promptNotFound(ref(ctx.params)));
  });

  // Deleting a prompt with every version and label (docs/prompts.md); traces keep the name and version they recorded.
  router.delete('/:id', write, operation('delete prompt', 'metadata'), async (ctx) => {
    const current = found(await prompts.get(ctx.state.projectId, ref(ctx.params)), ref(ctx.params));
    if (!(await prompts.remove(ctx.state.projectId, current.id))) throw promptNotFound(ref(ctx.params));
    ctx.status = 204;
  });

  router.get('/:id/versions', read, operation('get prompt', 'metadata'), async (ctx) => {
    const page = validate(pageQuery(MAX_PROMPT_PAGE), ctx.query);
    ctx.body = orNotFound(await prompts.versions(ctx.state.projectId, ref(ctx.params), page), () => promptNotFound(ref(ctx.params)));
  });

  router.post('/:id/labels', write, operation('update prompt', 'metadata'), async (ctx) => {
    const { labels, version } = validate(SetLabelsSchema, ctx.request.body);
    ctx.body = found(await prompts.setLabels(ctx.state.projectId, ref(ctx.params), labels, version), ref(ctx.params), { version });
  });

  router.delete('/:id/labels/:label', write, operation('update prompt', 'metadata'), async (ctx) => {
    const { label } = validate(z.object({ label: LabelName }), { label: ctx.params.label });
    ctx.body = found(await prompts.removeLabel(ctx.state.projectId, ref(ctx.params), label), ref(ctx.params), { label });
  });

  router.post('/:id/render', read, operation('get prompt', 'metadata'), async (ctx) => {
    const { variables, ...select } = validate(RenderRequestSchema, ctx.request.body ?? {});
    const prompt = found(await prompts.get(ctx.state.projectId, ref(ctx.params), select), ref(ctx.params), select);
    ctx.body = { id: prompt.id, name: prompt.name, version: prompt.version, ...renderPrompt(prompt, variables) };
  });

  router.get('/:id/traces', read, operation('get prompt', 'metadata'), async (ctx) => {
    const q = validate(TracesQuerySchema, ctx.query);
    const select = { version: q.version, label: q.label };
    const prompt = found(await prompts.get(ctx.state.projectId, ref(ctx.params), select), ref(ctx.params), select);
    // Only a version asked for (by number or label) narrows the list; otherwise every version counts.
    const version = q.version !== undefined || q.label !== undefined ? prompt.version : undefined;
    // The same SPEC text, but a failure from here on is the analytical store's (503 names it).
    ctx.state.operation = { name: 'get prompt', store: 'analytics' } satisfies Operation;
    const traces = await deps.analytics.listPromptTraces(ctx.state.projectId, { name: prompt.name, version, limit: q.limit, offset: q.offset });
    ctx.body = { id: prompt.id, name: prompt.name, version: version ?? null, ...traces };
  });

  return router;
}
