import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { packTarGz, unpackTarGz } from '../../../core/backup/tar.js';
import { agentText } from '../../helpers/corpus.js';

/** The backup archive's .tar.gz, written and read without a dependency: what `tar` reads, and what it refuses. */

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-tar-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function source(): { dir: string; files: Record<string, Buffer> } {
  const dir = fs.mkdtempSync(path.join(root, 'src-'));
  const files: Record<string, Buffer> = {
    'manifest.json': Buffer.from('{"format":"agent-eval-backup"}\n'),
    'postgres/empty.ndjson': Buffer.alloc(0),
    'postgres/api_keys.ndjson': Buffer.from('{"name":"ci ✓ ünï"}\n'),
    'clickhouse/spans.native': randomBytes(1024 * 1024 + 17),
    'clickhouse/exactly-512.native': randomBytes(512),
  };
  for (const [name, data] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), data);
  }
  return { dir, files };
}

async function packed(): Promise<{ archive: string; files: Record<string, Buffer> }> {
  const { dir, files } = source();
  const archive = path.join(root, `${path.basename(dir)}.tar.gz`);
  await packTarGz(dir, Object.keys(files), archive);
  return { archive, files };
}

describe('backup archive (.tar.gz)', () => {
  it('round-trips every file byte for byte, in order, and is written 0600', async () => {
    const { archive, files } = await packed();
    expect(fs.statSync(archive).mode & 0o777).toBe(0o600);
    const out = fs.mkdtempSync(path.join(root, 'out-'));
    expect(await unpackTarGz(archive, out)).toEqual(Object.keys(files));
    for (const [name, data] of Object.entries(files)) expect(fs.readFileSync(path.join(out, name)).equals(data), name).toBe(true);
    expect(fs.readdirSync(out).sort()).toEqual(['clickhouse', 'manifest.json', 'postgres']);
  });

  it('round-trips files of any size holding any text agents send (corpus, fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(agentText(), fc.nat(1100)), { minLength: 1, maxLength: 4 }), async (entries) => {
        const dir = fs.mkdtempSync(path.join(root, 'prop-'));
        // An NDJSON dump of the texts, then padding to land on and around the 512-byte blocks.
        const files = entries.map(
          ([text, pad], i) => [`postgres/t${i}.ndjson`, Buffer.concat([Buffer.from(`${JSON.stringify({ text })}\n`), Buffer.alloc(pad, 0x20)])] as const,
        );
        fs.mkdirSync(path.join(dir, 'postgres'));
        for (const [name, data] of files) fs.writeFileSync(path.join(dir, name), data);
        const archive = `${dir}.tar.gz`;
        await packTarGz(
          dir,
          files.map(([name]) => name),
          archive,
        );
        const out = fs.mkdtempSync(path.join(root, 'prop-out-'));
        expect(await unpackTarGz(archive, out)).toEqual(files.map(([name]) => name));
        for (const [name, data] of files) expect(fs.readFileSync(path.join(out, name)).equals(data), name).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('is a tar.gz the system tar lists and extracts', async () => {
    const { archive, files } = await packed();
    expect(execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).trim().split('\n')).toEqual(Object.keys(files));
    const out = fs.mkdtempSync(path.join(root, 'tar-'));
    execFileSync('tar', ['-xzf', archive, '-C', out]);
    for (const [name, data] of Object.entries(files)) expect(fs.readFileSync(path.join(out, name)).equals(data), name).toBe(true);
  });

  it('refuses a truncated archive', async () => {
    const { archive } = await packed();
    const cut = path.join(root, 'cut.tar.gz');
    fs.writeFileSync(cut, fs.readFileSync(archive).subarray(0, 40_000));
    await expect(unpackTarGz(cut, fs.mkdtempSync(path.join(root, 'out-')))).rejects.toThrow();
  });

  it('refuses a header whose checksum does not match', async () => {
    const { archive } = await packed();
    const tar = zlib.gunzipSync(fs.readFileSync(archive));
    tar[3] ^= 0x20; // a letter of the first entry's name
    const bad = path.join(root, 'bad.tar.gz');
    fs.writeFileSync(bad, zlib.gzipSync(tar));
    await expect(unpackTarGz(bad, fs.mkdtempSync(path.join(root, 'out-')))).rejects.toThrow('a header checksum does not match');
  });

  it('refuses entries that would land outside the directory', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'evil-'));
    fs.mkdirSync(path.join(dir, 'inner'));
    fs.writeFileSync(path.join(dir, 'outside.txt'), 'x');
    const archive = path.join(root, 'evil.tar.gz');
    await packTarGz(path.join(dir, 'inner'), ['../outside.txt'], archive);
    const out = fs.mkdtempSync(path.join(root, 'out-'));
    await expect(unpackTarGz(archive, path.join(out))).rejects.toThrow('unsafe name');
    expect(fs.readdirSync(path.dirname(out)).includes('outside.txt')).toBe(false);
  });

  it('refuses a file that is not gzip', async () => {
    const plain = path.join(root, 'plain.txt');
    fs.writeFileSync(plain, 'not an archive');
    await expect(unpackTarGz(plain, fs.mkdtempSync(path.join(root, 'out-')))).rejects.toThrow();
  });
});
