import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../../core/errors.js';
import { modelNameCandidates } from '../../../core/cost/model-name.js';
import { buildPriceTable, loadPriceTable, parsePriceFile, type PriceFile } from '../../../core/cost/price-table.js';

const table = loadPriceTable();
const priceOf = (model: string) => table.lookup(model)?.model;

describe('the shipped price table', () => {
  it('has a dated version and list prices of the main Anthropic, OpenAI and Google models', () => {
    expect(table.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const providers = new Set(table.entries().map((e) => e.provider));
    expect([...providers].sort()).toEqual(['anthropic', 'google', 'openai']);
    expect(table.lookup('gpt-4o-mini')).toMatchObject({ provider: 'openai', input: 0.15, output: 0.6, cached_input: 0.075 });
    expect(table.lookup('claude-sonnet-4-6')).toMatchObject({ provider: 'anthropic', input: 3, output: 15, cached_input: 0.3 });
    expect(table.lookup('gemini-2.5-flash')).toMatchObject({ provider: 'google', input: 0.3, output: 2.5 });
  });

  it('prices every judge provider default model but the ones it cannot know', () => {
    // The judges' defaults (core/config.ts) the table knows: a run's judge budget in dollars needs them.
    expect(priceOf('claude-sonnet-4-6')).toBe('claude-sonnet-4-6');
    expect(priceOf('gpt-5.4-mini')).toBe('gpt-5.4-mini');
  });
});

describe('model names: exact, then the documented normalisation, never a substring', () => {
  it.each([
    ['gpt-4o-mini', 'gpt-4o-mini'],
    ['GPT-4o-mini', 'gpt-4o-mini'],
    [' gpt-4o-mini ', 'gpt-4o-mini'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['openai/gpt-4o', 'gpt-4o'],
    ['openai/gpt-4o-2024-08-06', 'gpt-4o'],
    ['claude-sonnet-4-20250514', 'claude-sonnet-4'],
    ['claude-sonnet-4@20250514', 'claude-sonnet-4'],
    ['anthropic/claude-sonnet-4.6', 'claude-sonnet-4-6'],
    ['claude-3-5-haiku-latest', 'claude-3-5-haiku'],
    ['models/gemini-2.5-pro', 'gemini-2.5-pro'],
    ['projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash', 'gemini-2.5-flash'],
    ['gemini-2.0-flash-001', 'gemini-2.0-flash'],
    ['gemini-3-pro-preview', 'gemini-3-pro'],
  ])('%s is priced as %s', (name, model) => {
    expect(priceOf(name)).toBe(model);
  });

  it.each([
    // Different models that merely start with a known name.
    'gpt-4o-mini-audio-preview',
    'gpt-4o-realtime-preview',
    'gpt-5.4-mini-fast',
    // A fine-tuned model has its own prices.
    'ft:gpt-4o-mini:acme::abc123',
    // Embedded names.
    'my-gpt-4o-proxy',
    'gpt-4',
    'claude',
    '',
  ])('%s is not priced', (name) => {
    expect(table.lookup(name)).toBeUndefined();
  });

  it('tries the candidates in order, each step only once', () => {
    expect(modelNameCandidates('OpenAI/GPT-4o-2024-08-06')).toEqual(['OpenAI/GPT-4o-2024-08-06', 'openai/gpt-4o-2024-08-06', 'gpt-4o-2024-08-06', 'gpt-4o']);
    expect(modelNameCandidates('gpt-4o')).toEqual(['gpt-4o']);
  });
});

const file = (version: string, models: PriceFile['providers'][string]['models'], provider = 'acme'): PriceFile =>
  parsePriceFile({ version, providers: { [provider]: { models } } }, 'test');

describe('an override file', () => {
  const shipped = file('2026-01-01', { 'model-a': { input: 1, output: 2, cached_input: 0.5 }, 'model-b': { input: 3, output: 4 } });

  it('replaces the prices of the models it names, adds new ones, keeps the rest, and names both versions', () => {
    const merged = buildPriceTable(shipped, file('acme-7', { 'MODEL-A': { input: 10, output: 20 }, 'model-c': { input: 5, output: 6 } }, 'negotiated'));
    expect(merged.version).toBe('2026-01-01+acme-7');
    expect(merged.lookup('model-a')).toMatchObject({ input: 10, output: 20, cached_input: null, provider: 'negotiated' });
    expect(merged.lookup('model-b')).toMatchObject({ input: 3, output: 4 });
    expect(merged.lookup('model-c')).toMatchObject({ input: 5, output: 6 });
  });

  it('is read from AGENT_EVAL_PRICES_FILE and refused with every problem listed when it is wrong', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prices-'));
    const good = path.join(dir, 'good.json');
    fs.writeFileSync(good, JSON.stringify({ version: 'ours-1', providers: { openai: { models: { 'gpt-4o-mini': { input: 0.1, output: 0.4 } } } } }));
    const t = loadPriceTable(good);
    expect(t.version).toMatch(/^\d{4}-\d{2}-\d{2}\+ours-1$/);
    expect(t.lookup('gpt-4o-mini-2024-07-18')).toMatchObject({ input: 0.1, output: 0.4 });

    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ providers: { openai: { models: { x: { input: -1, output: 'free' } } } } }));
    let err: unknown;
    try {
      loadPriceTable(bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message).toContain('version');
    expect(message).toContain('providers.openai.models.x.input');
    expect(message).toContain('providers.openai.models.x.output');
    expect(() => loadPriceTable(path.join(dir, 'missing.json'))).toThrow(/cannot be read/);
  });
});
