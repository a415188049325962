import { z } from 'zod';

/** `?limit=&offset=` of every list route (the SPEC's defaults: limit 50, offset 0); routes extend it with their filters. */
export function pageQuery(maxLimit: number) {
  return z.object({
    limit: z.coerce.number().int().min(1).max(maxLimit).default(50),
    offset: z.coerce.number().int().min(0).default(0),
  });
}
