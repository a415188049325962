import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys have the SPEC's shape `ae_<env>_<random>`: `env` names where the key is meant to be
 * used (`live`, `test`, ...), `random` is 32 base62 characters (~190 bits). The prefix used to
 * find a key (`ae_<env>_` plus the first 8 random characters) is not secret: it is stored and
 * listed. Only a SHA-256 hash of the whole key is stored; a key this random needs no slow hash.
 */
export const KEY_PATTERN = /^ae_([a-z0-9]{1,16})_([A-Za-z0-9]{32})$/;
export const ENV_PATTERN = /^[a-z0-9]{1,16}$/;
const PREFIX_RANDOM_CHARS = 8;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export interface NewApiKey {
  key: string;
  prefix: string;
  hash: Buffer;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    // Rejection sampling keeps every character equally likely (248 = 4 * 62).
    for (const byte of randomBytes(length * 2)) if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
  }
  return out;
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

export function generateApiKey(env: string): NewApiKey {
  const key = `ae_${env}_${randomBase62(32)}`;
  return { key, prefix: keyPrefix(key)!, hash: hashKey(key) };
}

/** The lookup prefix of a well-formed key; undefined for anything else (no store lookup for junk). */
export function keyPrefix(key: string): string | undefined {
  const m = KEY_PATTERN.exec(key);
  return m ? `ae_${m[1]}_${m[2].slice(0, PREFIX_RANDOM_CHARS)}` : undefined;
}

/** Constant-time comparison of a presented key with a stored hash. */
export function keyMatches(key: string, storedHash: Buffer): boolean {
  const presented = hashKey(key);
  return presented.length === storedHash.length && timingSafeEqual(presented, storedHash);
}
