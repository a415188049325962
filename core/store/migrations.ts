import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_VERSION } from '../config.js';
import type { Logger } from '../logger.js';
import { packagePath } from '../os/package-files.js';

/** A numbered SQL file, split into statements. Files are never edited after they land. */
export interface Migration {
  id: string;
  statements: string[];
}

/** Where one store records and applies migrations. */
export interface MigrationTarget {
  store: 'clickhouse' | 'postgres';
  applied(): Promise<Set<string>>;
  /** Applies every statement of the migration and records it. */
  apply(migration: Migration): Promise<void>;
}

export const MIGRATIONS_DIR = packagePath('migrations/');

/** Splits on `;` at the end of a line, dropping `--` comment lines. */
export function splitStatements(sql: string): string[] {
  const withoutComments = sql
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n');
  return withoutComments
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function readMigrations(store: MigrationTarget['store'], root = MIGRATIONS_DIR): Migration[] {
  const dir = path.join(root, store);
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: f.replace(/\.sql$/, ''), statements: splitStatements(fs.readFileSync(path.join(dir, f), 'utf8')) }));
}

/** A store a newer version of agent-eval migrated: this version must not run on it. */
export class NewerStoreError extends Error {
  constructor(
    readonly store: MigrationTarget['store'],
    readonly unknownMigrations: string[],
  ) {
    super(
      `the ${store === 'clickhouse' ? 'ClickHouse' : 'PostgreSQL'} store was migrated by a newer agent-eval than this one (${PACKAGE_VERSION}): ` +
        `it has migration${unknownMigrations.length > 1 ? 's' : ''} ${unknownMigrations.join(', ')}, which this version does not know. ` +
        'Run that version or a newer one, or restore a backup taken before the upgrade (docs/deployment.md, "Upgrades and migrations")',
    );
    this.name = 'NewerStoreError';
  }
}

/**
 * Applies the store's pending migrations in order; returns the ids applied now. Refuses a store
 * that holds a migration this version does not have (NewerStoreError) before applying anything:
 * its schema is one this version's queries were not written for, and a downgrade is not supported.
 */
export async function migrate(target: MigrationTarget, logger: Logger): Promise<string[]> {
  const done = await target.applied();
  const migrations = readMigrations(target.store);
  const known = new Set(migrations.map((m) => m.id));
  const unknown = [...done].filter((id) => !known.has(id)).sort();
  if (unknown.length) throw new NewerStoreError(target.store, unknown);
  const pending = migrations.filter((m) => !done.has(m.id));
  for (const migration of pending) {
    logger.info({ store: target.store, migration: migration.id }, 'applying migration');
    await target.apply(migration);
  }
  return pending.map((m) => m.id);
}
