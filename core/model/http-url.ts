import { z } from 'zod';

/**
 * An absolute http(s) URL without credentials (fetch refuses URLs that carry them; they go in
 * headers): agent endpoints and alert webhooks.
 */
export const HttpUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .superRefine((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http or https URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must be an http or https URL' });
    else if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not carry credentials: send them in headers' });
  });
