import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHED_INPUT_TOKEN_ATTRIBUTES } from '../../../core/cost/span-cost.js';
import { idProblem } from '../../../core/model/ids.js';
import { Timestamp } from '../../../core/model/ingest-body.js';
import {
  MAX_BODY_DEPTH,
  MAX_TOKENS_PER_SPAN,
  nestedDeeperThan,
  reportedTokensProblem,
  retentionProblem,
  spanTokensProblem,
  TOKEN_COUNT_ATTRIBUTES,
} from '../../../core/model/limits.js';
import { REPO_ROOT } from '../../helpers/processes.js';

/** The rules that refuse, at the door, values that used to be accepted and hurt later (docs/api.md, "Refused at the door"). */

const CONTROL = 'must not contain control characters (U+0000-U+001F, U+007F-U+009F)';

describe('the id rule', () => {
  it('refuses C0, DEL and C1 control characters anywhere in an id', () => {
    for (const c of ['\u0000', '\u0001', '\u0009', '\u000a', '\u001b', '\u001f', '\u007f', '\u0080', '\u0085', '\u009f']) {
      expect(idProblem(`trace${c}`), JSON.stringify(c)).toBe(CONTROL);
      expect(idProblem(`${c}trace`), JSON.stringify(c)).toBe(CONTROL);
    }
  });

  it('refuses a lone surrogate and keeps every other character', () => {
    expect(idProblem('a\ud800b')).toBe('must be well-formed Unicode (no unpaired surrogates)');
    for (const id of ['trace-1', '5b8efff798038103d269b633813fc60c', 'résumé', 'agent 😀', 'nbsp\u00a0ok', 'a/b:c.d_e', '名前'])
      expect(idProblem(id), id).toBeNull();
  });
});

describe('Timestamp: a date that does not exist is refused, not rolled over', () => {
  const parse = (v: unknown) => Timestamp.safeParse(v);

  it('refuses days past the end of their month, 24:00 and 60 minutes', () => {
    for (const text of [
      '2026-02-30T00:00:00Z',
      '2026-02-29T12:00:00Z',
      '2025-04-31',
      '2026-06-31T10:00:00.000+02:00',
      '2026-01-01T24:00:00Z',
      '2026-01-01T10:60:00Z',
    ]) {
      const result = parse(text);
      expect(result.success, text).toBe(false);
    }
    const out = parse('2026-02-30T00:00:00Z');
    expect(out.success).toBe(false);
    expect(out.error?.issues.map((i) => i.message)).toEqual(['must be a date and time that exist (2026-02-30T00:00:00Z does not)']);
  });

  it('keeps every date that exists, leap days and offsets included', () => {
    expect(parse('2024-02-29T23:59:59.999Z').data).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999));
    expect(parse('2026-02-28T00:00:00Z').data).toBe(Date.UTC(2026, 1, 28));
    expect(parse('2026-03-01T00:30:00+01:00').data).toBe(Date.UTC(2026, 1, 28, 23, 30));
    expect(parse('2000-02-29').data).toBe(Date.UTC(2000, 1, 29));
    expect(parse('2026-12-31 23:59').success).toBe(true);
  });
});

describe('token counts', () => {
  it(`refuses a count past ${MAX_TOKENS_PER_SPAN}, negative or fractional, under any convention's name`, () => {
    expect(reportedTokensProblem({ 'gen_ai.usage.input_tokens': 2 ** 53 - 1 })).toBe(
      'gen_ai.usage.input_tokens is 9007199254740991; a token count must be a whole number from 0 to 1000000000',
    );
    expect(reportedTokensProblem({ 'llm.token_count.prompt': MAX_TOKENS_PER_SPAN + 1 })).toMatch(/^llm\.token_count\.prompt is 1000000001;/);
    expect(reportedTokensProblem({ 'ai.usage.promptTokens': -3 })).toMatch(/^ai\.usage\.promptTokens is -3;/);
    expect(reportedTokensProblem({ output_tokens: 1.5 })).toMatch(/^output_tokens is 1.5;/);
    // OTLP int64s beyond 2^53 arrive as decimal text.
    expect(reportedTokensProblem({ 'gen_ai.usage.output_tokens': '9223372036854775807' })).toMatch(/^gen_ai\.usage\.output_tokens is 9223372036854775807;/);
    expect(reportedTokensProblem({ 'llm.usage.total_tokens': '1e20' })).toMatch(/^llm\.usage\.total_tokens is 1e20;/);
    expect(reportedTokensProblem({ cached_input_tokens: 2n ** 60n })).toMatch(/^cached_input_tokens is 1152921504606846976;/);
    // The JSON body's top-level fields too.
    expect(reportedTokensProblem({}, { input_tokens: -1 })).toMatch(/^input_tokens is -1;/);
  });

  it('accepts counts up to the bound, and leaves alone values that are no number (not read as counts)', () => {
    expect(reportedTokensProblem({ 'gen_ai.usage.input_tokens': MAX_TOKENS_PER_SPAN, 'gen_ai.usage.output_tokens': '12', 'ai.usage.tokens': 0 })).toBeNull();
    expect(reportedTokensProblem({ input_tokens: 'lots', output_tokens: null, 'llm.token_count.total': [1] })).toBeNull();
    expect(reportedTokensProblem({ other_count: 2 ** 53 })).toBeNull();
  });

  it('checks a normalized span the same way', () => {
    expect(spanTokensProblem({ input_tokens: 10, output_tokens: 20, cached_input_tokens: 5 })).toBeNull();
    expect(spanTokensProblem({ input_tokens: 10, output_tokens: 2 ** 53 - 1 })).toMatch(/^output_tokens is 9007199254740991;/);
  });

  it('names every attribute the normalizers and the pricing read token counts from', () => {
    const files = [path.join(REPO_ROOT, 'core/cost/span-cost.ts')];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts')) files.push(full);
      }
    };
    walk(path.join(REPO_ROOT, 'collector/normalize'));
    const read = new Set<string>();
    for (const file of files) for (const m of fs.readFileSync(file, 'utf8').matchAll(/'([^' ]*[Tt]oken[^' ]*)'/g)) read.add(m[1]);
    expect(read.size).toBeGreaterThan(20);
    expect([...read].filter((k) => !(TOKEN_COUNT_ATTRIBUTES as readonly string[]).includes(k))).toEqual([]);
    expect(CACHED_INPUT_TOKEN_ATTRIBUTES.filter((k) => !(TOKEN_COUNT_ATTRIBUTES as readonly string[]).includes(k))).toEqual([]);
  });
});

describe('retention', () => {
  const now = Date.UTC(2026, 5, 1);
  it('refuses a start older than now minus RETENTION_DAYS, naming it', () => {
    expect(retentionProblem(Date.UTC(2025, 0, 1), 90, now)).toBe('start time 2025-01-01T00:00:00.000Z is older than the retention of 90 days (RETENTION_DAYS)');
    expect(retentionProblem(now - 90 * 86_400_000 - 1, 90, now)).not.toBeNull();
  });
  it('keeps a start within the retention, and everything when no retention is given', () => {
    expect(retentionProblem(now - 90 * 86_400_000, 90, now)).toBeNull();
    expect(retentionProblem(now + 86_400_000, 90, now)).toBeNull();
    expect(retentionProblem(Date.UTC(2025, 0, 1), undefined, now)).toBeNull();
  });
});

describe('body depth', () => {
  const nested = (depth: number, leaf: unknown = 1): unknown => {
    let v = leaf;
    for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
    return v;
  };
  it(`is refused past ${MAX_BODY_DEPTH} levels of objects and arrays, however deep, without recursion`, () => {
    expect(nestedDeeperThan(nested(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(nestedDeeperThan(nested(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
    expect(nestedDeeperThan(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), MAX_BODY_DEPTH)).toBe(true);
    expect(nestedDeeperThan({ wide: Array.from({ length: 1000 }, () => ({ x: [1, 2, { y: 'z' }] })) }, MAX_BODY_DEPTH)).toBe(false);
    expect(nestedDeeperThan('text', 0)).toBe(false);
    expect(nestedDeeperThan(null, 0)).toBe(false);
  });
});
