import Router from '@koa/router';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { CreateCustomScorerSchema } from '../../core/model/custom-scorer.js';
import type { ApiDeps } from '../deps.js';
import { endpointResourceRoutes } from './endpoint-resource.js';

/** Largest page of GET /api/scorers. */
export const MAX_SCORER_PAGE = 1000;

function scorerNotFound(): NotFoundError {
  return new NotFoundError('Scorer not found', 'SCORER_NOT_FOUND');
}

/**
 * /api/scorers: HTTP custom scorers, registered per project like agents (docs/scorers.md).
 * `:id` is a scorer's id or its name. A name the process's own scorers already use (a rule, a
 * judge, `llmJudge:…`) is refused: suites name scorers by name.
 */
export function scorersRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/scorers' });

  endpointResourceRoutes(router, deps, {
    noun: 'scorer',
    plural: 'scorers',
    store: deps.metadata.scorers,
    createSchema: CreateCustomScorerSchema,
    maxPage: MAX_SCORER_PAGE,
    notFound: scorerNotFound,
    checkCreate(input) {
      if (deps.scorers.get(input.name)) throw new ValidationError([{ field: 'name', message: `'${input.name}' is a built-in scorer's name` }]);
    },
  });
  return router;
}
