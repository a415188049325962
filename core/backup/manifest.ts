/** What a backup archive holds, as `manifest.json`, its first entry (docs/operations.md, "Backup and restore"). */
export interface BackupTable {
  name: string;
  /** Rows stored, counted in the snapshot; the restore checks it loaded exactly these. */
  rows: number;
  /** The entry holding the rows. */
  file: string;
  /** Columns in the order the file holds them. */
  columns: string[];
}

export interface BackupManifest {
  format: 'agent-eval-backup';
  format_version: 1;
  agent_eval_version: string;
  /** ISO time of the snapshot: both stores as of this moment. */
  created_at: string;
  clickhouse: { migrations: string[]; tables: BackupTable[] };
  postgres: { migrations: string[]; tables: BackupTable[]; sequences: Array<{ name: string; last_value: string | null }> };
  /** Whether `credentials.json` (the bootstrap key's file) is in the archive. */
  credentials: boolean;
}

export const MANIFEST_FILE = 'manifest.json';
export const CREDENTIALS_FILE = 'credentials.json';

/** The manifest of an extracted archive, refused when it is not one this version reads. */
export function parseManifest(text: string): BackupManifest {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text) as BackupManifest;
  } catch {
    throw new Error('not an agent-eval backup: manifest.json is not JSON');
  }
  if (manifest?.format !== 'agent-eval-backup') throw new Error('not an agent-eval backup: manifest.json has no "format": "agent-eval-backup"');
  if (manifest.format_version !== 1) throw new Error(`backup format version ${String(manifest.format_version)} is not one this agent-eval reads (1)`);
  return manifest;
}
