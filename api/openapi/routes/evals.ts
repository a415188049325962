import { z } from 'zod';
import { CreateAgentSchema, UpdateAgentSchema } from '../../../core/model/agent.js';
import { CreateCustomScorerSchema } from '../../../core/model/custom-scorer.js';
import { SuiteDefinitionSchema } from '../../../core/model/suite.js';
import { PromptBodySchema, PromptUpdateSchema, SetLabelsSchema } from '../../../core/model/prompt.js';
import { RenderRequestSchema } from '../../../core/model/prompt-render.js';
import {
  AgentListSchema,
  AgentSchema,
  CustomScorerListSchema,
  CustomScorerSchema,
  PromptLabelsSchema,
  PromptListSchema,
  PromptTracesSchema,
  PromptVersionListSchema,
  PromptVersionSchema,
  RenderedPromptSchema,
  SuiteListSchema,
  SuiteSummarySchema,
  SuiteVersionSchema,
  SuiteVersionsSchema,
} from '../../../core/model/answers-evals.js';
import { ListQuerySchema as SuiteListQuery, VersionQuerySchema as SuiteVersionQuery } from '../../routes/suites.js';
import { ListQuerySchema as PromptListQuery, SelectorQuerySchema as PromptSelector, TracesQuerySchema as PromptTracesQuery } from '../../routes/prompts.js';
import { pageQuery } from '../../routes/page-query.js';
import { defineRoutes, NoContent, type RouteSpec, routeGroup } from '../route-spec.js';

/** Agents, scorers, suites and prompts (api/openapi/registry.ts). */
const Page = (max: number) => pageQuery(max);
const deleted = { 204: NoContent };

const agentsRoutes = routeGroup('Agents', 'evals:write');
const suitesRoutes = routeGroup('Suites', 'evals:write');
const promptsRoutes = routeGroup('Prompts', 'prompts:read');

export const EVAL_RESOURCES_ROUTES = defineRoutes([
  ...crud('agents', 'Agent', 'Agents', CreateAgentSchema, AgentSchema, AgentListSchema, 1000),
  agentsRoutes.put('/api/agents/{id}', 'updateAgent', 'Replace an agent (by id or name)', {
    body: UpdateAgentSchema,
    answers: { 200: AgentSchema },
    errors: [404, 409],
  }),
  ...crud('scorers', 'Scorer', 'Scorers', CreateCustomScorerSchema, CustomScorerSchema, CustomScorerListSchema, 1000),
  suitesRoutes.post('/api/suites', 'createSuite', 'Create a suite (version 1) from a definition or YAML text', {
    body: SuiteDefinitionSchema,
    bodyMediaTypes: { 'application/yaml': { description: 'The suite file as YAML (docs/suites.md)' } },
    answers: { 201: SuiteSummarySchema },
    errors: [409, 413, 415],
  }),
  suitesRoutes.get('/api/suites', 'listSuites', 'Suites', { access: 'evals:read', query: SuiteListQuery, answers: { 200: SuiteListSchema } }),
  suitesRoutes.get('/api/suites/{id}', 'getSuite', 'A suite version (the latest unless `version`)', {
    access: 'evals:read',
    query: SuiteVersionQuery,
    answers: { 200: SuiteVersionSchema },
    errors: [404],
  }),
  suitesRoutes.get('/api/suites/{id}/versions', 'listSuiteVersions', "A suite's versions", {
    access: 'evals:read',
    answers: { 200: SuiteVersionsSchema },
    errors: [404],
  }),
  suitesRoutes.put('/api/suites/{id}', 'updateSuite', 'Write a new version of a suite (a whole definition or YAML text)', {
    body: SuiteDefinitionSchema,
    bodyMediaTypes: { 'application/yaml': { description: 'The suite file as YAML (docs/suites.md)' } },
    answers: { 200: SuiteSummarySchema },
    errors: [404, 409, 413, 415],
  }),
  suitesRoutes.delete('/api/suites/{id}', 'deleteSuite', 'Delete a suite', { answers: deleted, errors: [404] }),
]);

/** POST, GET list, GET one, DELETE of an endpoint resource (api/routes/endpoint-resource.ts). */
function crud(plural: string, noun: string, tag: string, create: z.ZodType, one: z.ZodType, list: z.ZodType, maxPage: number): RouteSpec[] {
  return [
    {
      method: 'post',
      path: `/api/${plural}`,
      operationId: `create${noun}`,
      summary: `Register ${noun.toLowerCase()}`,
      tag,
      access: 'evals:write',
      body: create,
      answers: { 201: one },
      errors: [409],
    },
    { method: 'get', path: `/api/${plural}`, operationId: `list${tag}`, summary: tag, tag, access: 'evals:read', query: Page(maxPage), answers: { 200: list } },
    {
      method: 'get',
      path: `/api/${plural}/{id}`,
      operationId: `get${noun}`,
      summary: `${noun} by id or name`,
      tag,
      access: 'evals:read',
      answers: { 200: one },
      errors: [404],
    },
    {
      method: 'delete',
      path: `/api/${plural}/{id}`,
      operationId: `delete${noun}`,
      summary: `Delete ${noun.toLowerCase()} (by id or name)`,
      tag,
      access: 'evals:write',
      answers: deleted,
      errors: [404],
    },
  ];
}

export const PROMPTS_ROUTES = defineRoutes([
  promptsRoutes.get('/api/prompts', 'listPrompts', 'Prompts', { query: PromptListQuery, answers: { 200: PromptListSchema } }),
  promptsRoutes.post('/api/prompts', 'createPrompt', 'Create a prompt (version 1)', {
    access: 'prompts:write',
    body: PromptBodySchema,
    answers: { 201: PromptVersionSchema },
    errors: [409],
  }),
  promptsRoutes.get('/api/prompts/{id}', 'getPrompt', 'A prompt version (the newest, or by `version` or `label`)', {
    query: PromptSelector,
    answers: { 200: PromptVersionSchema },
    errors: [404],
  }),
  promptsRoutes.put('/api/prompts/{id}', 'updatePrompt', 'Write a new version of a prompt', {
    access: 'prompts:write',
    body: PromptUpdateSchema,
    answers: { 200: PromptVersionSchema },
    errors: [404],
  }),
  promptsRoutes.delete('/api/prompts/{id}', 'deletePrompt', 'Delete a prompt with every version and label', {
    access: 'prompts:write',
    answers: deleted,
    errors: [404],
  }),
  promptsRoutes.get('/api/prompts/{id}/versions', 'listPromptVersions', "A prompt's versions", {
    query: Page(1000),
    answers: { 200: PromptVersionListSchema },
    errors: [404],
  }),
  promptsRoutes.post('/api/prompts/{id}/labels', 'setPromptLabels', 'Point labels at a version', {
    access: 'prompts:write',
    body: SetLabelsSchema,
    answers: { 200: PromptLabelsSchema },
    errors: [404],
  }),
  promptsRoutes.delete('/api/prompts/{id}/labels/{label}', 'removePromptLabel', 'Remove a label', {
    access: 'prompts:write',
    answers: { 200: PromptLabelsSchema },
    errors: [404],
  }),
  promptsRoutes.post('/api/prompts/{id}/render', 'renderPrompt', 'Render a version with variables', {
    body: RenderRequestSchema,
    bodyOptional: true,
    answers: { 200: RenderedPromptSchema },
    errors: [404],
  }),
  promptsRoutes.get('/api/prompts/{id}/traces', 'listPromptTraces', 'Traces whose spans name the prompt', {
    query: PromptTracesQuery,
    answers: { 200: PromptTracesSchema },
    errors: [404],
  }),
]);
