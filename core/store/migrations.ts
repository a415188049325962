import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logger.js';

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

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

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

/** Applies the store's pending migrations in order; returns the ids applied now. */
export async function migrate(target: MigrationTarget, logger: Logger): Promise<string[]> {
  const done = await target.applied();
  const pending = readMigrations(target.store).filter((m) => !done.has(m.id));
  for (const migration of pending) {
    logger.info({ store: target.store, migration: migration.id }, 'applying migration');
    await target.apply(migration);
  }
  return pending.map((m) => m.id);
}
