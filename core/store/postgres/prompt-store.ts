import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { PromptStore } from '../prompts.js';
import { ConflictError, ValidationError } from '../../errors.js';
import { isUuid } from '../../model/agent.js';
import { textProblem } from '../../model/pg-json.js';
import {
  LATEST_LABEL,
  MAX_LABELS_PER_PROMPT,
  MAX_PROMPT_NAME,
  type ChatMessage,
  type PromptInput,
  type PromptLabels,
  type PromptLookup,
  type PromptSelector,
  type PromptSummary,
  type PromptType,
  type PromptVersion,
} from '../../model/prompt.js';
import { promptVariables } from '../../model/prompt-render.js';
import { inTransaction, isUniqueViolation } from './transaction.js';
import { isoTimes, type RowOf } from './rows.js';

export type { PromptStore };

interface VersionRow {
  id: string;
  name: string;
  type: PromptType;
  latest_version: number;
  created_at: Date;
  updated_at: Date;
  version: number | null;
  template: string | null;
  messages: ChatMessage[] | null;
  config: Record<string, unknown> | null;
  description: string | null;
  commit_message: string | null;
  version_created_at: Date | null;
  labels: string[];
}

type SummaryRow = RowOf<PromptSummary, 'created_at' | 'updated_at'>;

interface PromptRow {
  id: string;
  name: string;
  latest_version: number;
}

/** The one converter from a joined version row (its version columns known to be present). */
function toVersion(row: VersionRow): PromptVersion {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    version: row.version!,
    latest_version: row.latest_version,
    labels: row.labels,
    template: row.template,
    messages: row.messages,
    config: row.config,
    description: row.description,
    commit_message: row.commit_message,
    variables: promptVariables(row),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    version_created_at: row.version_created_at!.toISOString(),
  };
}

const toSummary = (row: SummaryRow) => isoTimes<PromptSummary, 'created_at' | 'updated_at'>(row, ['created_at', 'updated_at']);

/**
 * How a reference finds a prompt: `$2` as an id when it has the form of one, else as a name.
 * Null when it can be neither (a name PostgreSQL could not even compare: too long, NUL, a lone
 * surrogate), so odd paths are a 404 and never a database error.
 */
function refMatch(ref: string, alias = 'p'): string | null {
  if (isUuid(ref)) return `${alias}.id = $2::uuid`;
  if (ref.length === 0 || ref.length > MAX_PROMPT_NAME || textProblem(ref)) return null;
  return `${alias}.name = $2`;
}

/** `$3` is the version wanted (null: latest), `$4` a label (null: none); with a label, `$3` is null. */
const VERSION = `SELECT p.id, p.name, p.type, p.latest_version, p.created_at, p.updated_at,
    v.version, v.template, v.messages, v.config, v.description, v.commit_message, v.created_at AS version_created_at,
    ARRAY(SELECT l.label FROM prompt_labels l WHERE l.prompt_id = p.id AND l.version = v.version ORDER BY l.label) AS labels
  FROM prompts p
  LEFT JOIN prompt_labels sel ON sel.prompt_id = p.id AND sel.label = $4::text
  LEFT JOIN prompt_versions v ON v.prompt_id = p.id
    AND v.version = CASE WHEN $4::text IS NULL THEN COALESCE($3::int, p.latest_version) ELSE sel.version END`;

const LABEL_MAP = `COALESCE((SELECT jsonb_object_agg(l.label, l.version) FROM prompt_labels l WHERE l.prompt_id = p.id), '{}'::jsonb)`;

const SUMMARY = `SELECT p.id, p.name, p.type, v.description, p.latest_version, ${LABEL_MAP} AS labels, p.created_at, p.updated_at
  FROM prompts p JOIN prompt_versions v ON v.prompt_id = p.id AND v.version = p.latest_version`;

const INSERT_VERSION = `INSERT INTO prompt_versions (prompt_id, version, template, messages, config, description, commit_message)
  VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7)`;

/** Points each label of `$2` at version `$3`: one upsert, so a label is never on two versions. */
const MOVE_LABELS = `INSERT INTO prompt_labels (prompt_id, label, version)
  SELECT $1, label, $3 FROM unnest($2::text[]) AS label
  ON CONFLICT (prompt_id, label) DO UPDATE SET version = EXCLUDED.version, updated_at = now()`;

function versionParams(promptId: string, version: number, input: PromptInput): unknown[] {
  return [
    promptId,
    version,
    input.template,
    input.messages === null ? null : JSON.stringify(input.messages),
    input.config === null ? null : JSON.stringify(input.config),
    input.description,
    input.commit_message,
  ];
}

function nameTaken(name: string, err: unknown): unknown {
  const unique = isUniqueViolation(err);
  return unique ? new ConflictError(`A prompt named '${name}' already exists in this project`, 'PROMPT_NAME_TAKEN') : err;
}

/** The label names selecting a version: `latest` is the newest version, not a stored label. */
function selection(select: PromptSelector): [number | null, string | null] {
  if (select.label !== undefined && select.label !== LATEST_LABEL) return [null, select.label];
  return [select.version ?? null, null];
}

export function createPromptStore(pool: pg.Pool): PromptStore {
  async function readVersion(
    client: pg.Pool | pg.ClientBase,
    projectId: string,
    match: string,
    ref: string,
    select: PromptSelector,
  ): Promise<PromptLookup<PromptVersion>> {
    const { rows } = await client.query<VersionRow>(`${VERSION} WHERE p.project_id = $1 AND ${match}`, [projectId, ref, ...selection(select)]);
    if (!rows.length) return { found: false, missing: 'prompt' };
    if (rows[0].version === null) return { found: false, missing: select.label !== undefined && select.label !== LATEST_LABEL ? 'label' : 'version' };
    return { found: true, value: toVersion(rows[0]) };
  }

  /** Moves labels to `version` of a prompt whose row the caller has locked; refuses more than MAX_LABELS_PER_PROMPT. */
  async function moveLabels(client: pg.ClientBase, promptId: string, labels: string[], version: number): Promise<void> {
    if (!labels.length) return;
    // Sorted, so two transactions touching the same labels lock their rows in the same order.
    await client.query(MOVE_LABELS, [promptId, [...labels].sort(), version]);
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM prompt_labels WHERE prompt_id = $1', [promptId]);
    if (rows[0].n > MAX_LABELS_PER_PROMPT) {
      throw new ValidationError([{ field: 'labels', message: `a prompt holds at most ${MAX_LABELS_PER_PROMPT} labels; remove some first` }]);
    }
  }

  /** The prompt's row, locked for the rest of the transaction: its writes take turns. */
  async function lockPrompt(client: pg.ClientBase, projectId: string, ref: string): Promise<PromptRow | null> {
    const match = refMatch(ref);
    if (!match) return null;
    const { rows } = await client.query<PromptRow>(`SELECT p.id, p.name, p.latest_version FROM prompts p WHERE p.project_id = $1 AND ${match} FOR UPDATE`, [
      projectId,
      ref,
    ]);
    return rows[0] ?? null;
  }

  async function labelsOf(client: pg.ClientBase, prompt: PromptRow): Promise<PromptLabels> {
    const { rows } = await client.query<{ label: string; version: number }>('SELECT label, version FROM prompt_labels WHERE prompt_id = $1 ORDER BY label', [
      prompt.id,
    ]);
    return { id: prompt.id, name: prompt.name, latest_version: prompt.latest_version, labels: Object.fromEntries(rows.map((r) => [r.label, r.version])) };
  }

  async function written(client: pg.ClientBase, projectId: string, id: string, version: number): Promise<PromptVersion> {
    const read = await readVersion(client, projectId, 'p.id = $2::uuid', id, { version });
    if (!read.found) throw new Error(`prompt ${id} version ${version} vanished inside its own transaction`);
    return read.value;
  }

  return {
    async create(projectId, input) {
      const id = randomUUID();
      try {
        return await inTransaction(pool, async (client) => {
          await client.query('INSERT INTO prompts (id, project_id, name, type, latest_version) VALUES ($1, $2, $3, $4, 1)', [
            id,
            projectId,
            input.name,
            input.type,
          ]);
          await client.query(INSERT_VERSION, versionParams(id, 1, input));
          await moveLabels(client, id, input.labels, 1);
          return written(client, projectId, id, 1);
        });
      } catch (err) {
        throw nameTaken(input.name, err);
      }
    },

    async list(projectId, { limit, offset, name, label }) {
      const params: unknown[] = [projectId];
      let filter = '';
      if (name !== undefined) {
        params.push(name);
        filter += ` AND strpos(lower(p.name), lower($${params.length})) > 0`;
      }
      if (label !== undefined && label !== LATEST_LABEL) {
        params.push(label);
        filter += ` AND EXISTS (SELECT 1 FROM prompt_labels l WHERE l.prompt_id = p.id AND l.label = $${params.length})`;
      }
      const n = params.length;
      const [page, count] = await Promise.all([
        pool.query<SummaryRow>(`${SUMMARY} WHERE p.project_id = $1${filter} ORDER BY p.created_at DESC, p.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [
          ...params,
          limit,
          offset,
        ]),
        pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM prompts p WHERE p.project_id = $1${filter}`, params),
      ]);
      return { prompts: page.rows.map(toSummary), total: count.rows[0].total, limit, offset };
    },

    async remove(projectId, id) {
      return inTransaction(pool, async (client) => {
        const { rowCount } = await client.query('SELECT 1 FROM prompts WHERE id = $1 AND project_id = $2 FOR UPDATE', [id, projectId]);
        if (!rowCount) return false;
        await client.query('DELETE FROM prompt_labels WHERE prompt_id = $1', [id]);
        await client.query('DELETE FROM prompt_versions WHERE prompt_id = $1', [id]);
        await client.query('DELETE FROM prompts WHERE id = $1', [id]);
        return true;
      });
    },

    async get(projectId, ref, select = {}) {
      const match = refMatch(ref);
      if (!match) return { found: false, missing: 'prompt' };
      return readVersion(pool, projectId, match, ref, select);
    },

    async versions(projectId, ref, { limit, offset }) {
      const match = refMatch(ref);
      if (!match) return null;
      const { rows: found } = await pool.query<PromptRow>(`SELECT p.id, p.name, p.latest_version FROM prompts p WHERE p.project_id = $1 AND ${match}`, [
        projectId,
        ref,
      ]);
      if (!found.length) return null;
      const prompt = found[0];
      const { rows } = await pool.query<{ version: number; commit_message: string | null; created_at: Date; labels: string[] }>(
        `SELECT v.version, v.commit_message, v.created_at,
           ARRAY(SELECT l.label FROM prompt_labels l WHERE l.prompt_id = v.prompt_id AND l.version = v.version ORDER BY l.label) AS labels
         FROM prompt_versions v WHERE v.prompt_id = $1 ORDER BY v.version DESC LIMIT $2 OFFSET $3`,
        [prompt.id, limit, offset],
      );
      return {
        id: prompt.id,
        name: prompt.name,
        // Versions are 1..latest_version with no gaps: rows are never deleted.
        total: prompt.latest_version,
        limit,
        offset,
        versions: rows.map((r) => ({ version: r.version, labels: r.labels, commit_message: r.commit_message, created_at: r.created_at.toISOString() })),
      };
    },

    async update(projectId, id, input) {
      if (!isUuid(id)) return null;
      return inTransaction(pool, async (client) => {
        const prompt = await lockPrompt(client, projectId, id);
        if (!prompt) return null;
        const version = prompt.latest_version + 1;
        await client.query(INSERT_VERSION, versionParams(prompt.id, version, input));
        await client.query('UPDATE prompts SET latest_version = $2, updated_at = now() WHERE id = $1', [prompt.id, version]);
        await moveLabels(client, prompt.id, input.labels, version);
        return written(client, projectId, prompt.id, version);
      });
    },

    async setLabels(projectId, ref, labels, version) {
      return inTransaction(pool, async (client): Promise<PromptLookup<PromptLabels>> => {
        const prompt = await lockPrompt(client, projectId, ref);
        if (!prompt) return { found: false, missing: 'prompt' };
        if (version > prompt.latest_version) return { found: false, missing: 'version' };
        await moveLabels(client, prompt.id, labels, version);
        return { found: true, value: await labelsOf(client, prompt) };
      });
    },

    async removeLabel(projectId, ref, label) {
      return inTransaction(pool, async (client): Promise<PromptLookup<PromptLabels>> => {
        const prompt = await lockPrompt(client, projectId, ref);
        if (!prompt) return { found: false, missing: 'prompt' };
        const { rowCount } = await client.query('DELETE FROM prompt_labels WHERE prompt_id = $1 AND label = $2', [prompt.id, label]);
        if (!rowCount) return { found: false, missing: 'label' };
        return { found: true, value: await labelsOf(client, prompt) };
      });
    },
  };
}
