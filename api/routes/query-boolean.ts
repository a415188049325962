import { z } from 'zod';

/** A query-string boolean: true / false (also 1 / 0). */
export const QueryBoolean = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
