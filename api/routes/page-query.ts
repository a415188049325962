import { z } from 'zod';

/** `?limit=&offset=` of every list route (the SPEC's defaults: limit 50, offset 0); routes extend it with their filters. */
export function pageQuery(maxLimit: number) {
  return z.object({
    limit: z.coerce.number().int().min(1).max(maxLimit).default(50),
    offset: z.coerce.number().int().min(0).default(0),
  });
}

/** A list's `?<flag>=true|false` filter as a boolean; absent when not given (any other value is a 422). */
export const flagQuery = () =>
  z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional();

/** A list's time filter (`start_time`, `end_time`: epoch ms or ISO text, validated) as the store takes it; undefined when absent. */
export const timeBound = (time: string | number | undefined): Date | undefined => (time === undefined ? undefined : new Date(time));
