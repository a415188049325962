/** What a waterfall row says of its span beside the name: model, tokens and cost, compactly. */
import { formatUsd } from './cost.js';

interface RowSpan {
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  cost: { total: number } | null;
}

/** 950, 1.2k, 12k, 1.5M: a count in at most four characters. */
export function compactCount(n: number): string {
  if (!Number.isFinite(n)) return '-';
  if (n < 1000) return String(Math.round(n));
  if (n < 10_000) return `${Number((n / 1000).toFixed(1))}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${Number((n / 1_000_000).toFixed(1))}M`;
}

export interface RowFacts {
  model: string | null;
  /** Input + output tokens, compact ("1.2k tok"); null when the span used none. */
  tokens: string | null;
  cost: string | null;
  /** All of it in words, for the row's tooltip. */
  title: string;
}

export function rowFacts(span: RowSpan): RowFacts {
  const used = span.input_tokens + span.output_tokens;
  const tokens = used > 0 ? `${compactCount(used)} tok` : null;
  const cost = span.cost ? formatUsd(span.cost.total) : null;
  const words = [
    span.model ? `model ${span.model}` : null,
    used > 0 ? `${span.input_tokens.toLocaleString('en-US')} in / ${span.output_tokens.toLocaleString('en-US')} out tokens` : null,
    cost ? `cost ${cost}` : null,
  ].filter((w) => w !== null);
  return { model: span.model, tokens, cost, title: words.join(', ') };
}
