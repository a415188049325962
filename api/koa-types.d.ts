import 'koa';

declare module 'koa' {
  interface Request {
    /** Set by the jsonBody middleware: the parsed JSON body, not yet validated. */
    body?: unknown;
  }
}
