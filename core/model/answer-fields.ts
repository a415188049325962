import { z } from 'zod';

/** Fields and pieces the answer schemas (core/model/answers*.ts) share. */

/** A time as the API writes it. */
export const Time = z.string().describe('ISO 8601 with milliseconds');

/** When a stored resource was created and last changed. */
export const timestamps = { created_at: Time, updated_at: Time };

/** A JSON object whose fields another document describes. */
export const object = (description: string) => z.looseObject({}).describe(description);

/** An offset-paged list's bounds, after its items: how many match in all, and the page's size and start. */
export const offsetPageFields = { total: z.number().int(), limit: z.number().int(), offset: z.number().int() };

/** An offset-paged list: its items under `key`, then the page's bounds. */
export function offsetList<K extends string, T extends z.ZodType>(key: K, item: T) {
  const items = { [key]: z.array(item) } as { [P in K]: z.ZodArray<T> };
  return z.object({ ...items, ...offsetPageFields });
}
