import { RecomputeCostsSchema } from '../../../core/model/cost.js';
import { AuditListQuerySchema } from '../../../core/model/audit.js';
import { DataErasureBodySchema } from '../../../core/model/data-deletion.js';
import { CreateKeySchema, CreateProjectSchema, RateLimitsSchema } from '../../../core/model/project.js';
import { AddMemberSchema, SetRoleSchema } from '../../../core/model/user.js';
import {
  AdminProjectListSchema,
  AdminProjectSchema,
  ApiKeyListSchema,
  AuditPageSchema,
  DataDeletionSchema,
  PriceTableSchema,
  RecomputeResultSchema,
  CreatedApiKeySchema,
  CreatedProjectSchema,
  MemberListSchema,
  MemberSchema,
  ProjectDetailSchema,
  ProjectListSchema,
  RateLimitsAnswerSchema,
} from '../../../core/model/answers-admin.js';
import { pageQuery } from '../../routes/page-query.js';
import { defineRoutes, NoContent, routeGroup } from '../route-spec.js';

/** Projects, keys, members, costs, administration and deletion (api/openapi/registry.ts). */
const Page = (max: number) => pageQuery(max);
const deleted = { 204: NoContent };

const projects = routeGroup('Projects', 'projects:admin');
const costs = routeGroup('Costs', 'projects:admin');
const administration = routeGroup('Administration', 'server-admin');
const deletion = routeGroup('Deletion', 'projects:admin');

export const ADMIN_ROUTES = defineRoutes([
  projects.post('/api/projects', 'createProject', 'Create a project and its first admin key', {
    access: 'server-admin',
    body: CreateProjectSchema,
    answers: { 201: CreatedProjectSchema },
    errors: [409],
  }),
  projects.get('/api/projects', 'listProjects', 'The projects the caller reaches', { access: 'authenticated', answers: { 200: ProjectListSchema } }),
  projects.get('/api/projects/{id}', 'getProject', 'A project', { access: 'authenticated', answers: { 200: ProjectDetailSchema }, errors: [404] }),
  projects.post('/api/projects/{id}/keys', 'createKey', 'Create an API key (shown once)', {
    body: CreateKeySchema,
    answers: { 201: CreatedApiKeySchema },
    errors: [404],
  }),
  projects.get('/api/projects/{id}/keys', 'listKeys', "A project's keys (no secrets)", { answers: { 200: ApiKeyListSchema }, errors: [404] }),
  projects.delete('/api/projects/{id}/keys/{keyId}', 'revokeKey', 'Revoke a key', { answers: deleted, errors: [404] }),
  projects.get('/api/projects/{id}/rate-limits', 'getRateLimits', "A project's rate limits", {
    access: 'authenticated',
    answers: { 200: RateLimitsAnswerSchema },
    errors: [404],
  }),
  projects.put('/api/projects/{id}/rate-limits', 'setRateLimits', "Set a project's rate limits", {
    body: RateLimitsSchema,
    answers: { 200: RateLimitsAnswerSchema },
    errors: [404],
  }),
  projects.get('/api/projects/{id}/members', 'listMembers', "A project's members", { answers: { 200: MemberListSchema }, errors: [404] }),
  projects.post('/api/projects/{id}/members', 'addMember', 'Add a member', {
    body: AddMemberSchema,
    answers: { 200: MemberSchema, 201: MemberSchema },
    errors: [404, 409],
  }),
  projects.put('/api/projects/{id}/members/{userId}', 'setMemberRole', "Change a member's role", {
    body: SetRoleSchema,
    answers: { 200: MemberSchema },
    errors: [404],
  }),
  projects.delete('/api/projects/{id}/members/{userId}', 'removeMember', 'Remove a member', { answers: deleted, errors: [404] }),
  costs.post('/api/admin/recompute-costs', 'recomputeCosts', "Reprice a window's spans with the price table in force", {
    body: RecomputeCostsSchema,
    answers: { 200: RecomputeResultSchema },
  }),
  costs.get('/api/admin/prices', 'getPrices', 'The price table in force', { access: 'traces:read', answers: { 200: PriceTableSchema } }),
  administration.get('/api/admin/projects', 'adminListProjects', 'Every project (server admins)', {
    query: Page(1000),
    answers: { 200: AdminProjectListSchema },
  }),
  administration.post('/api/admin/projects/{id}/archive', 'archiveProject', 'Archive a project (read-only)', {
    answers: { 200: AdminProjectSchema },
    errors: [404, 409],
  }),
  administration.post('/api/admin/projects/{id}/unarchive', 'unarchiveProject', 'Unarchive a project', {
    answers: { 200: AdminProjectSchema },
    errors: [404, 409],
  }),
  administration.delete('/api/admin/projects/{id}', 'deleteProject', 'Delete a project and all its data (in the background)', {
    answers: { 202: AdminProjectSchema },
    errors: [404, 409],
  }),
  administration.post('/api/admin/backup', 'backup', 'A backup of both stores, streamed', {
    answers: { 200: { contentType: 'application/gzip', description: 'A tar.gz of the stores (docs/deployment.md)' } },
    errors: [409],
  }),
  administration.get('/api/audit', 'listAudit', "The project's audit log", {
    access: 'projects:admin',
    query: AuditListQuerySchema,
    answers: { 200: AuditPageSchema },
  }),
  deletion.post('/api/deletions', 'requestDeletion', "Erase a user's or a session's data", {
    body: DataErasureBodySchema,
    answers: { 202: DataDeletionSchema },
  }),
  deletion.get('/api/deletions/{id}', 'getDeletion', 'A deletion request and its progress', { answers: { 200: DataDeletionSchema }, errors: [404] }),
]);
