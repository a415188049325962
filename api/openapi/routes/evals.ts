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

const evalsAccess = { read: 'evals:read', write: 'evals:write' } as const;
const agents = routeGroup('Agents', evalsAccess);
const suites = routeGroup('Suites', evalsAccess);
const promptsAccess = { read: 'prompts:read', write: 'prompts:write' } as const;
const prompts = routeGroup('Prompts', promptsAccess);
/** The routes of one prompt answer 404 when there is no such prompt. */
const prompt = routeGroup('Prompts', promptsAccess, { errors: [404] });

/** A suite is written from a definition or its YAML text. */
const suiteBody = { body: SuiteDefinitionSchema, bodyMediaTypes: { 'application/yaml': { description: 'The suite file as YAML (docs/suites.md)' } } };

export const EVAL_RESOURCES_ROUTES = defineRoutes([
  ...crud('agents', 'Agent', 'Agents', CreateAgentSchema, AgentSchema, AgentListSchema, 1000),
  agents.put('/api/agents/{id}', 'updateAgent', 'Replace an agent (by id or name)', {
    body: UpdateAgentSchema,
    answers: { 200: AgentSchema },
    errors: [404, 409],
  }),
  ...crud('scorers', 'Scorer', 'Scorers', CreateCustomScorerSchema, CustomScorerSchema, CustomScorerListSchema, 1000),
  suites.post('/api/suites', 'createSuite', 'Create a suite (version 1) from a definition or YAML text', {
    ...suiteBody,
    answers: { 201: SuiteSummarySchema },
    errors: [409, 413, 415],
  }),
  suites.get('/api/suites', 'listSuites', 'Suites', { query: SuiteListQuery, answers: { 200: SuiteListSchema } }),
  suites.get('/api/suites/{id}', 'getSuite', 'A suite version (the latest unless `version`)', {
    query: SuiteVersionQuery,
    answers: { 200: SuiteVersionSchema },
    errors: [404],
  }),
  suites.get('/api/suites/{id}/versions', 'listSuiteVersions', "A suite's versions", { answers: { 200: SuiteVersionsSchema }, errors: [404] }),
  suites.put('/api/suites/{id}', 'updateSuite', 'Write a new version of a suite (a whole definition or YAML text)', {
    ...suiteBody,
    answers: { 200: SuiteSummarySchema },
    errors: [404, 409, 413, 415],
  }),
  suites.delete('/api/suites/{id}', 'deleteSuite', 'Delete a suite', { answers: deleted, errors: [404] }),
]);

/** POST, GET list, GET one, DELETE of an endpoint resource (api/routes/endpoint-resource.ts). */
function crud(plural: string, noun: string, tag: string, create: z.ZodType, one: z.ZodType, list: z.ZodType, maxPage: number): RouteSpec[] {
  const group = routeGroup(tag, evalsAccess);
  return [
    group.post(`/api/${plural}`, `create${noun}`, `Register ${noun.toLowerCase()}`, { body: create, answers: { 201: one }, errors: [409] }),
    group.get(`/api/${plural}`, `list${tag}`, tag, { query: Page(maxPage), answers: { 200: list } }),
    group.get(`/api/${plural}/{id}`, `get${noun}`, `${noun} by id or name`, { answers: { 200: one }, errors: [404] }),
    group.delete(`/api/${plural}/{id}`, `delete${noun}`, `Delete ${noun.toLowerCase()} (by id or name)`, { answers: deleted, errors: [404] }),
  ];
}

export const PROMPTS_ROUTES = defineRoutes([
  prompts.get('/api/prompts', 'listPrompts', 'Prompts', { query: PromptListQuery, answers: { 200: PromptListSchema } }),
  prompts.post('/api/prompts', 'createPrompt', 'Create a prompt (version 1)', { body: PromptBodySchema, answers: { 201: PromptVersionSchema }, errors: [409] }),
  prompt.get('/api/prompts/{id}', 'getPrompt', 'A prompt version (the newest, or by `version` or `label`)', {
    query: PromptSelector,
    answers: { 200: PromptVersionSchema },
  }),
  prompt.put('/api/prompts/{id}', 'updatePrompt', 'Write a new version of a prompt', { body: PromptUpdateSchema, answers: { 200: PromptVersionSchema } }),
  prompt.delete('/api/prompts/{id}', 'deletePrompt', 'Delete a prompt with every version and label', { answers: deleted }),
  prompt.get('/api/prompts/{id}/versions', 'listPromptVersions', "A prompt's versions", { query: Page(1000), answers: { 200: PromptVersionListSchema } }),
  prompt.post('/api/prompts/{id}/labels', 'setPromptLabels', 'Point labels at a version', { body: SetLabelsSchema, answers: { 200: PromptLabelsSchema } }),
  prompt.delete('/api/prompts/{id}/labels/{label}', 'removePromptLabel', 'Remove a label', { answers: { 200: PromptLabelsSchema } }),
  // Rendering writes nothing: a read, though it is a POST (the variables come as its body).
  prompt.post('/api/prompts/{id}/render', 'renderPrompt', 'Render a version with variables', {
    access: 'prompts:read',
    body: RenderRequestSchema,
    bodyOptional: true,
    answers: { 200: RenderedPromptSchema },
  }),
  prompt.get('/api/prompts/{id}/traces', 'listPromptTraces', 'Traces whose spans name the prompt', {
    query: PromptTracesQuery,
    answers: { 200: PromptTracesSchema },
  }),
]);
