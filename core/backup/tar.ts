import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';

/**
 * The backup archive: a gzipped POSIX ustar file of regular files (tar -xzf reads it), written
 * and read here without a dependency. Names are relative, at most 100 bytes; files under 8 GiB
 * (ustar's size field).
 */

const BLOCK = 512;
const MAX_SIZE = 8 ** 11 - 1;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, mtime: number): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`archive entry name too long: ${name}`);
  if (size > MAX_SIZE) throw new Error(`archive entry ${name} is larger than 8 GiB`);
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(0o600, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.floor(mtime / 1000), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** Writes `names` (paths relative to `dir`) into `out` as a .tar.gz, in that order. */
export async function packTarGz(dir: string, names: string[], out: string): Promise<void> {
  async function* entries(): AsyncGenerator<Buffer> {
    for (const name of names) {
      const file = path.join(dir, name);
      const { size, mtimeMs } = fs.statSync(file);
      yield header(name, size, mtimeMs);
      let written = 0;
      for await (const chunk of fs.createReadStream(file)) {
        written += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
      if (written !== size) throw new Error(`${name} changed while it was archived`);
      if (size % BLOCK) yield Buffer.alloc(BLOCK - (size % BLOCK));
    }
    yield Buffer.alloc(BLOCK * 2);
  }
  await pipeline(entries, zlib.createGzip({ level: 6 }), fs.createWriteStream(out, { mode: 0o600 }));
}

/** An entry name that stays inside the directory it is extracted to. */
function safeName(name: string): string {
  const normalized = path.posix.normalize(name);
  if (!name || path.posix.isAbsolute(name) || normalized.startsWith('..') || normalized !== name || name.includes('\\')) {
    throw new Error(`archive entry with an unsafe name: ${JSON.stringify(name)}`);
  }
  return name;
}

/**
 * Extracts a .tar.gz written by packTarGz (regular files only) into `dir`; returns the names.
 * A truncated or corrupt archive fails (gzip's checksum, tar's header checksums).
 */
export async function unpackTarGz(archive: string, dir: string): Promise<string[]> {
  const tarFile = path.join(dir, '.archive.tar');
  await pipeline(fs.createReadStream(archive), zlib.createGunzip(), fs.createWriteStream(tarFile, { mode: 0o600 }));
  const fd = fs.openSync(tarFile, 'r');
  const names: string[] = [];
  try {
    const total = fs.fstatSync(fd).size;
    let offset = 0;
    const h = Buffer.alloc(BLOCK);
    for (;;) {
      if (offset + BLOCK > total) throw new Error('the archive is truncated');
      fs.readSync(fd, h, 0, BLOCK, offset);
      if (h.every((b) => b === 0)) break;
      const stored = parseInt(h.subarray(148, 156).toString('ascii').replace(/\0.*$/s, '').trim(), 8);
      let sum = 0;
      for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i];
      if (sum !== stored) throw new Error('the archive is corrupt (a header checksum does not match)');
      const name = safeName(h.subarray(0, 100).toString('utf8').replace(/\0.*$/s, ''));
      const size = parseInt(h.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim(), 8);
      const type = String.fromCharCode(h[156]);
      offset += BLOCK;
      if (type !== '0' && type !== '\0') throw new Error(`archive entry ${name} is not a regular file`);
      if (offset + size > total) throw new Error('the archive is truncated');
      const target = path.join(dir, name);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const out = fs.openSync(target, 'w', 0o600);
      try {
        const buf = Buffer.alloc(Math.min(size, 4 * 1024 * 1024) || 1);
        for (let done = 0; done < size;) {
          const n = fs.readSync(fd, buf, 0, Math.min(buf.length, size - done), offset + done);
          if (n <= 0) throw new Error('the archive is truncated');
          fs.writeSync(out, buf, 0, n);
          done += n;
        }
      } finally {
        fs.closeSync(out);
      }
      names.push(name);
      offset += Math.ceil(size / BLOCK) * BLOCK;
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(tarFile, { force: true });
  }
  return names;
}
