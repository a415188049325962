/** Money as people read it (docs/costs.md: amounts are USD at list prices). */

/**
 * "$1.23", "$0.0042", "$0.000015": cents for a dollar and more, else enough digits to show two
 * significant ones; "< $0.000001" for what is smaller still; "-" for no cost.
 */
export function formatUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '-';
  if (usd === 0) return '$0';
  if (usd < 0.000001) return '< $0.000001';
  if (usd >= 1) return `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  const digits = Math.min(6, Math.max(2, 1 - Math.floor(Math.log10(usd))));
  return `$${usd.toFixed(digits).replace(/(\.\d{2}\d*?)0+$/, '$1')}`;
}

/** A trace's or run's cost in words, naming the calls the price table could not price. */
export function costWords(usd: number | null, unpriced: number): string {
  const known = usd === null ? 'no priced model calls' : formatUsd(usd);
  return unpriced > 0 ? `${known} (+ ${unpriced} call${unpriced === 1 ? '' : 's'} of unknown price)` : known;
}
