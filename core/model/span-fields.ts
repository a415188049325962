import { z } from 'zod';

/**
 * A span's call, the same fields in the same order wherever a span is a zod schema (the API's
 * span, core/model/answers.ts; the Kafka envelope's span record, collector/kafka/envelope.ts):
 * how long it took, the model, what went in and out, and the tokens each way.
 */
export const spanCallShape = {
  duration_ms: z.number(),
  model: z.string().nullable(),
  input: z.string(),
  output: z.string(),
  input_tokens: z.number(),
  output_tokens: z.number(),
};
