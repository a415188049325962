/** The one converter each way between the model's times (ms or µs since the epoch) and ClickHouse's DateTime64. */

/** ms since epoch -> ClickHouse DateTime64(3) text in UTC. */
export function toClickHouseTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
}

/**
 * ms since epoch -> what a JSONEachRow row holds for a DateTime64(3): an integer of ticks
 * (milliseconds), which ClickHouse reads as such and which costs far less to write than text.
 */
export function toClickHouseTicks(ms: number): number {
  return Math.trunc(ms);
}

/** µs since epoch -> ClickHouse DateTime64(6) text in UTC. */
export function toClickHouseMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  return `${toClickHouseTime(ms)}${String(us % 1000).padStart(3, '0')}`;
}

/** ClickHouse DateTime64 text (UTC) -> ISO 8601. */
export function fromClickHouseTime(value: string): string {
  return `${value.replace(' ', 'T')}Z`;
}
