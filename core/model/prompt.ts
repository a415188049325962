import { z } from 'zod';
import { BadRequestError, ValidationError, type FieldIssue } from '../errors.js';
import { validate } from '../validate.js';
import { isUuid } from './agent.js';
import { asId } from './ids.js';
import { jsonProblems, MAX_REPORTED_ISSUES, pgText } from './pg-json.js';

/**
 * A prompt (SPEC "Prompt"): a named template, `text` (one string) or `chat` (a list of
 * messages), kept as immutable numbered versions. Labels (`production`, `staging`...) name one
 * version each and move between versions. docs/prompts.md is the contract.
 */

export const PROMPT_TYPES = ['text', 'chat'] as const;
export type PromptType = (typeof PROMPT_TYPES)[number];

export const MAX_PROMPT_NAME = 256;
/** A text prompt's template, in UTF-16 units (100 KB of ASCII). */
export const MAX_TEMPLATE_CHARS = 100_000;
export const MAX_MESSAGES = 200;
export const MAX_MESSAGE_CHARS = 100_000;
export const MAX_ROLE_CHARS = 64;
/** `config` as JSON text, in UTF-16 units. */
export const MAX_CONFIG_CHARS = 65_536;
export const MAX_DESCRIPTION = 4096;
export const MAX_COMMIT_MESSAGE = 1024;
/** Labels one request may set. */
export const MAX_LABELS_PER_REQUEST = 20;
/** Labels one prompt may hold across its versions. */
export const MAX_LABELS_PER_PROMPT = 50;
export const MAX_VARIABLES = 1000;
export const MAX_VARIABLE_CHARS = 100_000;
/** Longest rendered prompt (all messages together), in UTF-16 units. */
export const MAX_RENDERED_CHARS = 1_000_000;
export const MAX_PROMPT_VERSION = 2_147_483_647;

/** The label every prompt has implicitly: its newest version. It cannot be set or removed. */
export const LATEST_LABEL = 'latest';
export const LABEL_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
const LABEL_RULE = 'labels are 1-64 lowercase letters, digits, "_", "." or "-", starting with a letter or digit';

/** A label name as a query or path gives it (`latest` included). */
export const LabelName = z.string().regex(LABEL_PATTERN, LABEL_RULE);
/** A label a client may set: any label name but `latest`. */
export const SettableLabel = LabelName.refine((l) => l !== LATEST_LABEL, `"${LATEST_LABEL}" always names the newest version and cannot be set`);
/** A label list: duplicates collapse, order is kept. */
export const LabelList = z
  .array(SettableLabel)
  .max(MAX_LABELS_PER_REQUEST)
  .transform((labels) => [...new Set(labels)]);

export const PromptVersionNumber = z.number().int().min(1).max(MAX_PROMPT_VERSION);

/** A prompt's name: also how `:id` finds it, so it must not look like an id. */
const PromptName = asId(z.string().max(MAX_PROMPT_NAME).trim().min(1)).refine((n) => !isUuid(n), 'must not be a UUID (it would be taken for a prompt id)');

export const ChatMessageSchema = z.strictObject({
  role: pgText(MAX_ROLE_CHARS).trim().min(1),
  content: pgText(MAX_MESSAGE_CHARS),
});
export type ChatMessage = z.output<typeof ChatMessageSchema>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Model parameters and the like: any JSON object, kept as sent (a `__proto__` key stays a key,
 * which a zod record would drop). What jsonb cannot hold is refused by {@link jsonProblems}.
 */
const ConfigSchema = z.custom<Record<string, unknown>>(isRecord, 'must be a JSON object').superRefine((config, ctx) => {
  for (const issue of jsonProblems(config)) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.field === '(body)' ? [] : [issue.field] });
  const text = JSON.stringify(config);
  if (text !== undefined && text.length > MAX_CONFIG_CHARS) ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_CONFIG_CHARS} characters as JSON` });
});

/** One body of POST /api/prompts (and, with `name` and `type` optional, of PUT). */
export const PromptBodySchema = z.strictObject({
  name: PromptName,
  type: z.enum(PROMPT_TYPES),
  template: pgText(MAX_TEMPLATE_CHARS).nullish(),
  messages: z.array(ChatMessageSchema).min(1).max(MAX_MESSAGES).nullish(),
  config: ConfigSchema.nullish(),
  labels: LabelList.optional(),
  description: pgText(MAX_DESCRIPTION).nullish(),
  commit_message: pgText(MAX_COMMIT_MESSAGE).nullish(),
});
export const PromptUpdateSchema = PromptBodySchema.partial({ name: true, type: true });
/** A POST /api/prompts body as a client writes it (the SDK's typed client). */
export type PromptBody = z.input<typeof PromptBodySchema>;
/** A PUT /api/prompts/{id} body as a client writes it. */
export type PromptUpdateBody = z.input<typeof PromptUpdateSchema>;

/** A checked prompt version as the store writes it. */
export interface PromptInput {
  name: string;
  type: PromptType;
  template: string | null;
  messages: ChatMessage[] | null;
  config: Record<string, unknown> | null;
  /** Labels that move to this version. */
  labels: string[];
  description: string | null;
  commit_message: string | null;
}

function missing(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function bounded(issues: FieldIssue[]): FieldIssue[] {
  if (issues.length <= MAX_REPORTED_ISSUES) return issues;
  return [...issues.slice(0, MAX_REPORTED_ISSUES), { field: '(body)', message: `${issues.length - MAX_REPORTED_ISSUES} more problems not shown` }];
}

/**
 * The SPEC's 400s, in its order: `type must be "text" or "chat"`, then the template or messages
 * the type needs. Wrong types of a present value are 422s from the schema, not these.
 */
function requireContent(raw: Record<string, unknown>, type: unknown): asserts type is PromptType {
  if (type !== 'text' && type !== 'chat') throw new BadRequestError('type must be "text" or "chat"', 'INVALID_PROMPT_TYPE');
  if (type === 'text' && missing(raw.template)) throw new BadRequestError('template is required for text prompts', 'TEMPLATE_REQUIRED');
  if (type === 'chat' && (missing(raw.messages) || (Array.isArray(raw.messages) && raw.messages.length === 0))) {
    throw new BadRequestError('messages are required for chat prompts', 'MESSAGES_REQUIRED');
  }
}

function contentIssues(type: PromptType, body: { template?: string | null; messages?: unknown }): FieldIssue[] {
  if (type === 'text' && body.messages != null) return [{ field: 'messages', message: 'only chat prompts have messages' }];
  if (type === 'chat' && body.template != null) return [{ field: 'template', message: 'only text prompts have a template' }];
  return [];
}

function parseBody<S extends typeof PromptBodySchema | typeof PromptUpdateSchema>(schema: S, raw: unknown): z.output<S> {
  try {
    return validate(schema, raw) as z.output<S>;
  } catch (err) {
    if (err instanceof ValidationError) throw new ValidationError(bounded(err.issues));
    throw err;
  }
}

function toInput(name: string, type: PromptType, body: z.output<typeof PromptUpdateSchema>): PromptInput {
  return {
    name,
    type,
    template: type === 'text' ? (body.template ?? null) : null,
    messages: type === 'chat' ? (body.messages ?? null) : null,
    config: body.config ?? null,
    labels: body.labels ?? [],
    description: body.description ?? null,
    commit_message: body.commit_message ?? null,
  };
}

/**
 * Checks a POST /api/prompts body. The SPEC's four 400s come first (`name is required`, then
 * the type, then the template or messages it needs); every other problem is a 422 naming its
 * field. Own properties only: a `__proto__` key is an unknown key, never a prototype.
 */
export function parseCreatePrompt(raw: unknown): PromptInput {
  if (!isRecord(raw) || missing(raw.name)) throw new BadRequestError('name is required', 'NAME_REQUIRED');
  requireContent(raw, raw.type);
  const body = parseBody(PromptBodySchema, raw);
  const issues = contentIssues(body.type, body);
  if (issues.length) throw new ValidationError(issues);
  return toInput(body.name, body.type, body);
}

/**
 * Checks a PUT /api/prompts/{id} body against the prompt it updates: a whole new version.
 * `name` and `type` may be omitted; given, they must be the prompt's own (neither changes, so
 * labels, links from traces and clients holding the name stay valid).
 */
export function parsePromptUpdate(raw: unknown, current: { name: string; type: PromptType }): PromptInput {
  if (!isRecord(raw)) throw new ValidationError([{ field: '(body)', message: 'must be a JSON object' }]);
  const type = Object.hasOwn(raw, 'type') && raw.type !== undefined ? raw.type : current.type;
  requireContent(raw, type);
  const body = parseBody(PromptUpdateSchema, raw);
  const issues = contentIssues(type, body);
  if (body.name !== undefined && body.name !== current.name)
    issues.push({ field: 'name', message: `a prompt's name cannot change (this one is '${current.name}')` });
  if (type !== current.type) issues.push({ field: 'type', message: `a prompt's type cannot change (this one is '${current.type}')` });
  if (issues.length) throw new ValidationError(issues);
  return toInput(current.name, current.type, body);
}

/** POST /api/prompts/{id}/labels: `label` or `labels` (not both) move to `version`. */
export const SetLabelsSchema = z
  .strictObject({ label: SettableLabel.optional(), labels: LabelList.optional(), version: PromptVersionNumber })
  .superRefine((body, ctx) => {
    if ((body.label === undefined) === (body.labels === undefined)) ctx.addIssue({ code: 'custom', path: ['label'], message: 'give either label or labels' });
    else if (body.labels?.length === 0) ctx.addIssue({ code: 'custom', path: ['labels'], message: 'must not be empty' });
  })
  .transform((body) => ({ labels: body.labels ?? [body.label!], version: body.version }));

/** Which version a read wants: a number, a label, or (neither) the newest. */
export type PromptSelector = { version?: number; label?: string };

/** What rendering one version gives: the text or the messages, and which variables were used. */
export interface RenderedPrompt {
  type: PromptType;
  text: string | null;
  messages: ChatMessage[] | null;
  /** Names in the template that had a value, in order of first use. */
  used: string[];
  /** Names in the template without a value: left in the output as written. */
  missing: string[];
  /** Values given for names the template does not use. */
  unused: string[];
}

/** One version of a prompt, whole (GET /api/prompts/{id}, POST and PUT answers). */
export interface PromptVersion {
  id: string;
  name: string;
  type: PromptType;
  version: number;
  latest_version: number;
  /** The labels on this version, sorted (`latest` is implicit and not listed). */
  labels: string[];
  template: string | null;
  messages: ChatMessage[] | null;
  config: Record<string, unknown> | null;
  description: string | null;
  commit_message: string | null;
  /** The `{{variables}}` this version names. */
  variables: string[];
  /** When the prompt was created (its version 1). */
  created_at: string;
  /** When its latest version was written. */
  updated_at: string;
  /** When this version was written. */
  version_created_at: string;
}

/** A prompt as GET /api/prompts lists it: its latest version, summarized, and where its labels point. */
export interface PromptSummary {
  id: string;
  name: string;
  type: PromptType;
  description: string | null;
  latest_version: number;
  labels: Record<string, number>;
  created_at: string;
  updated_at: string;
}

export interface PromptList {
  prompts: PromptSummary[];
  total: number;
  limit: number;
  offset: number;
}

/** One entry of GET /api/prompts/{id}/versions. */
export interface PromptVersionInfo {
  version: number;
  labels: string[];
  commit_message: string | null;
  created_at: string;
}

export interface PromptVersionList {
  id: string;
  name: string;
  versions: PromptVersionInfo[];
  total: number;
  limit: number;
  offset: number;
}

/** Where a prompt's labels point (POST /api/prompts/{id}/labels answers this). */
export interface PromptLabels {
  id: string;
  name: string;
  latest_version: number;
  labels: Record<string, number>;
}

/** A read or write that may find no prompt, no such version or no such label. */
export type PromptLookup<T> = { found: true; value: T } | { found: false; missing: 'prompt' | 'version' | 'label' };

/** GET /api/prompts/{id}/traces: traces whose spans name the prompt (docs/prompts.md, "Linking traces"). */
export interface PromptTraceQuery {
  name: string;
  /** Only spans naming this version. */
  version?: number;
  limit: number;
  offset: number;
}

export interface PromptTraceLink {
  trace_id: string;
  /** Start of the earliest span in the trace that names the prompt. */
  start_time: string;
  /** The prompt versions its spans name (empty when they name none). */
  versions: number[];
  span_count: number;
}

export interface PromptTraceList {
  traces: PromptTraceLink[];
  total: number;
  limit: number;
  offset: number;
}
