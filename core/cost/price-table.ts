import fs from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { modelNameCandidates } from './model-name.js';
import { packagePath } from '../os/package-files.js';

/**
 * The versioned price table (docs/costs.md): USD per million tokens per provider and model,
 * shipped in core/cost/prices.json and overridable by a file of the same shape
 * (AGENT_EVAL_PRICES_FILE) merged over it. Every generation span is priced from it at ingest.
 */

const Price = z.number().finite().min(0).max(1_000_000);

const ModelPriceSchema = z.strictObject({
  input: Price,
  output: Price,
  /** Input tokens served from a prompt cache; billed at `input` when absent. */
  cached_input: Price.optional(),
});

const ModelId = z.string().trim().min(1).max(256);

const ProviderSchema = z.strictObject({
  /** Where the prices were read (a URL and what was taken), for people. */
  source: z.string().max(2000).optional(),
  models: z.record(ModelId, ModelPriceSchema),
  /** Other names of a model of this provider (`gemini-3-pro-preview` -> `gemini-3-pro`). */
  aliases: z.record(ModelId, ModelId).optional(),
});

export const PriceFileSchema = z.strictObject({
  /** Names this table in every span it prices, e.g. `2026-11-23`. */
  version: z.string().trim().min(1).max(64),
  currency: z.literal('USD').default('USD'),
  unit: z.literal('per million tokens').default('per million tokens'),
  note: z.string().max(4000).optional(),
  providers: z.record(z.string().trim().min(1).max(64), ProviderSchema),
});
export type PriceFile = z.output<typeof PriceFileSchema>;

/** One model's prices, USD per million tokens. */
export interface ModelPrice {
  provider: string;
  model: string;
  input: number;
  output: number;
  /** Null: cached input tokens cost the input price. */
  cached_input: number | null;
}

export interface PriceTable {
  /** The shipped table's version, or `<shipped>+<override>` when an override file is merged in. */
  readonly version: string;
  /** The price of a model named as a span names it (docs/costs.md "Model names"); undefined when unknown. */
  lookup(model: string): ModelPrice | undefined;
  /** Every model of the table, by provider then model. */
  entries(): ModelPrice[];
}

export const SHIPPED_PRICES_FILE = packagePath('core/cost/prices.json');

/** Distinct names remembered by `lookup`; past this the memo starts over (model names are few, garbage is not). */
const MEMO_LIMIT = 10_000;

/** Parses a price file; a ConfigError lists every problem, naming the file. */
export function parsePriceFile(json: unknown, origin: string): PriceFile {
  const parsed = PriceFileSchema.safeParse(json);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${origin}: ${i.path.join('.') || 'file'}: ${i.message}`);
    throw new ConfigError(`Invalid price table:\n${lines.join('\n')}`);
  }
  for (const [provider, p] of Object.entries(parsed.data.providers)) {
    for (const [alias, target] of Object.entries(p.aliases ?? {})) {
      if (!Object.hasOwn(p.models, target))
        throw new ConfigError(`Invalid price table:\n  ${origin}: providers.${provider}.aliases.${alias}: '${target}' is not a model of ${provider}`);
    }
  }
  return parsed.data;
}

function readPriceFile(file: string | URL): PriceFile {
  const origin = String(file instanceof URL ? file.pathname : file);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`Invalid price table:\n  ${origin}: cannot be read (${(err as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`Invalid price table:\n  ${origin}: not JSON (${(err as Error).message})`);
  }
  return parsePriceFile(json, origin);
}

/**
 * The table of the shipped file with `override` merged over it: a model the override names
 * (under any provider, its name compared lower-cased) takes the override's prices; the others
 * keep the shipped ones. The version names both, so every priced span says which prices it got.
 */
export function buildPriceTable(shipped: PriceFile, override?: PriceFile): PriceTable {
  const byName = new Map<string, ModelPrice>();
  const load = (file: PriceFile) => {
    for (const [provider, p] of Object.entries(file.providers)) {
      for (const [model, price] of Object.entries(p.models)) {
        byName.set(model.toLowerCase(), { provider, model, input: price.input, output: price.output, cached_input: price.cached_input ?? null });
      }
    }
  };
  const aliases = (file: PriceFile) => {
    for (const p of Object.values(file.providers)) {
      for (const [alias, target] of Object.entries(p.aliases ?? {})) {
        const price = byName.get(target.toLowerCase());
        if (price) byName.set(alias.toLowerCase(), price);
      }
    }
  };
  load(shipped);
  if (override) load(override);
  aliases(shipped);
  if (override) aliases(override);
  const version = override ? `${shipped.version}+${override.version}` : shipped.version;

  const memo = new Map<string, ModelPrice | null>();
  function resolve(model: string): ModelPrice | null {
    for (const name of modelNameCandidates(model)) {
      const price = byName.get(name);
      if (price) return price;
    }
    return null;
  }
  return {
    version,
    lookup(model) {
      let price = memo.get(model);
      if (price === undefined) {
        price = resolve(model);
        if (memo.size >= MEMO_LIMIT) memo.clear();
        memo.set(model, price);
      }
      return price ?? undefined;
    },
    entries() {
      const seen = new Set<ModelPrice>();
      return [...byName.values()]
        .filter((p) => !seen.has(p) && seen.add(p))
        .sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model));
    },
  };
}

/** The shipped table, with the file at `overridePath` (AGENT_EVAL_PRICES_FILE) merged over it when given. */
export function loadPriceTable(overridePath?: string): PriceTable {
  return buildPriceTable(readPriceFile(SHIPPED_PRICES_FILE), overridePath ? readPriceFile(overridePath) : undefined);
}
