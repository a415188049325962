/**
 * The ClickHouse gateway: embedded chDB served over ClickHouse's own HTTP interface.
 *
 * Why it exists: chDB runs in-process and a data dir can be opened by one process only, but every
 * role needs the analytical store (the worker writes scores and reads traces, a collector without
 * Kafka inserts, every process runs migrations at start). When the roles are split into processes
 * on one machine without a ClickHouse server (the split-process tests, a small single-host
 * deployment), the process that owns chDB serves it here and the others set `CLICKHOUSE_URL` to
 * it: they use the unchanged @clickhouse/client path (client.ts httpClickHouse) as they would
 * with a server. It is not a ClickHouse server: that one process still holds all the data
 * (docs/deployment.md, "Sharing embedded chDB between processes: the gateway").
 *
 * What it speaks is what @clickhouse/client sends (gateway-protocol.ts): `GET /ping`, SQL in a
 * POST body (query, command, exec), `query=INSERT ... FORMAT X` with the rows as the body,
 * `param_<name>` query parameters, every other URL parameter a setting. Requests run on the same
 * chDB connection the process uses, through the same queued @clickhouse/client-common Connection
 * (embedded-connection.ts: a failed request's partial output never reaches another), so they
 * behave as the in-process client does, down to one caveat: chDB applies a request's settings
 * with SET on that shared connection, so they outlast the request (the service's own clients send
 * the same per-query settings either way). Rows of an insert are streamed to chDB's raw insert as
 * bytes, never parsed in JS. Errors keep chDB's text (gateway-errors.ts).
 *
 * It serves arbitrary SQL: it listens on loopback unless told otherwise and requires the
 * password (user `default`, HTTP Basic as @clickhouse/client sends from the URL's
 * `default:secret@`), compared in constant time.
 */
import http from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Logger } from '../../logger.js';
import { bindParams, GatewayError, outputFormat, parseRequestUrl, passthroughInsert, type GatewayRequest } from './gateway-protocol.js';
import { errorReply } from './gateway-errors.js';
import type { EmbeddedConnection } from './embedded-connection.js';
import { EMPTY_LINE_MESSAGE, hasEmptyLine } from './inline-insert.js';
import { semaphore } from '../../os/semaphore.js';

export interface GatewayOptions {
  connection: EmbeddedConnection;
  host: string;
  /** 0: any free port. */
  port: number;
  password: string;
  logger?: Logger;
  /** Largest SQL body, and largest body of a statement that is not a streamable insert (default 16 MiB). */
  maxQueryBytes?: number;
  /**
   * An insert's rows go to chDB in chunks of at most this many bytes, cut at row boundaries, each
   * one INSERT (default 64 MiB: a batch of the service's write path is one INSERT, as in-process).
   * A larger body is inserted in several; a failure stops it after the chunks already written.
   * A CSV body, whose rows cannot be found without parsing it, is one INSERT of at most this size
   * (the service's batch writer cuts its batches below it: batch-writer.ts).
   */
  maxInsertChunkBytes?: number;
  /** Requests executing at once (chDB runs one statement at a time per connection); more wait (default 4). */
  maxConcurrent?: number;
  /** Requests waiting beyond which TOO_MANY_SIMULTANEOUS_QUERIES is answered (default 1000). */
  maxQueued?: number;
  /** An insert whose body stops arriving for this long fails (default 60 s). */
  stallTimeoutMs?: number;
}

export interface RunningGateway {
  /** `http://host:port`, without credentials. */
  url: string;
  port: number;
  /** Stops accepting, lets running requests finish for a few seconds, then cuts the rest. */
  close(): Promise<void>;
}

type Summary = Record<string, string>;
type Settings = NonNullable<Parameters<EmbeddedConnection['exec']>[0]['clickhouse_settings']>;
interface Result {
  body: Buffer;
  summary?: Summary;
  format?: string;
}

const CLOSE_GRACE_MS = 5000;
const gzip = promisify(zlib.gzip);
const deflate = promisify(zlib.deflate);
const brotli = promisify(zlib.brotliCompress);

/** chDB would store the rows before an empty line and run the rest as SQL (inline-insert.ts): refused whole, as bad data. */
const emptyLineError = () => new GatewayError(117, 'INCORRECT_DATA', `Cannot insert through the gateway: ${EMPTY_LINE_MESSAGE}`);

function wholeWithoutEmptyLines(data: Buffer): Buffer {
  if (hasEmptyLine(data)) throw emptyLineError();
  return data;
}

/**
 * A streamed body, refused at its first empty line. chDB inserts a streamed body in chunks, so the
 * chunks before the line may be stored already; the write path never streams an empty line (its
 * rows escape line breaks), and a client that does gets an error naming the cause, not a silent cut.
 */
async function* withoutEmptyLines(chunks: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  let last: number | undefined;
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    if (hasEmptyLine(chunk, last)) throw emptyLineError();
    last = chunk[chunk.length - 1];
    yield chunk;
  }
}

export async function startClickHouseGateway(options: GatewayOptions): Promise<RunningGateway> {
  const { connection, logger } = options;
  const maxQueryBytes = options.maxQueryBytes ?? 16 * 1024 * 1024;
  const maxChunk = options.maxInsertChunkBytes ?? 64 * 1024 * 1024;
  const limiter = createLimiter(options.maxConcurrent ?? 4, options.maxQueued ?? 1000);
  const expected = digest(options.password);
  let closing = false;

  async function runSql(sql: string, request: GatewayRequest, signal: AbortSignal, data?: Buffer): Promise<Result> {
    if (sql.trim() === '') throw new GatewayError(62, 'SYNTAX_ERROR', 'Empty query');
    // chDB takes SQL as a C string: it would run the text before a NUL and drop the rest.
    if (sql.includes('\0')) throw new GatewayError(62, 'SYNTAX_ERROR', 'The query text contains a NUL byte');
    if (data?.includes(0))
      throw new GatewayError(
        48,
        'NOT_IMPLEMENTED',
        'Data with NUL bytes (a binary format) can only be inserted as INSERT ... FORMAT JSONEachRow, JSONCompactEachRow, TabSeparated or CSV',
      );
    if (data && hasEmptyLine(data)) throw emptyLineError();
    const result = await connection.exec({
      query: sql,
      values: data && data.length > 0 ? Readable.from([data]) : undefined,
      query_params: bindParams(sql, request.params),
      // chDB's Connection turns default_format into the result format of SQL without a FORMAT clause.
      clickhouse_settings: { ...request.settings, default_format: request.defaultFormat } as Settings,
      query_id: request.queryId,
      abort_signal: signal,
    });
    return { body: await readAll(result.stream, Infinity), summary: result.summary as Summary | undefined, format: outputFormat(sql, request.defaultFormat) };
  }

  async function execute(request: GatewayRequest, body: Readable, signal: AbortSignal): Promise<Result> {
    if (request.query === undefined) return runSql((await readAll(body, maxQueryBytes)).toString('utf8'), request, signal);
    const insert = Object.keys(request.params).length === 0 ? passthroughInsert(request.query) : undefined;
    if (!insert) return runSql(request.query, request, signal, await readAll(body, maxQueryBytes));
    const target = { table: insert.table, columns: insert.columns };
    const done = insert.streamed
      ? await connection.chdb.streamInsert({
          ...target,
          format: insert.format,
          // Not destroyed when chDB stops reading on an error: the answer still has to reach the client.
          values: withoutEmptyLines(body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>),
          settings: request.settings,
          maxChunkBytes: maxChunk,
          maxRowBytes: maxChunk,
          stallTimeout: options.stallTimeoutMs ?? 60_000,
          signal,
        })
      : await connection.chdb.rawInsert({
          ...target,
          format: insert.format,
          values: wholeWithoutEmptyLines(await readAll(body, maxChunk)),
          settings: request.settings,
          signal,
        });
    const summary = {
      read_rows: String(done.rowsSent ?? done.rowsWritten),
      read_bytes: String(done.bytesSent),
      written_rows: String(done.rowsWritten),
      written_bytes: String(done.bytesWritten),
      total_rows_to_read: '0',
      result_rows: String(done.rowsWritten),
      result_bytes: String(done.bytesWritten),
      elapsed_ns: String(Math.round(done.elapsed * 1e9)),
    };
    return { body: Buffer.alloc(0), summary };
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (url.pathname === '/ping' || (url.pathname === '/' && req.method === 'GET' && !url.searchParams.has('query'))) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
      return;
    }
    if (url.pathname !== '/' || (req.method !== 'POST' && req.method !== 'GET')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=UTF-8' }).end(`There is no handle ${url.pathname} for ${req.method}\n`);
      return;
    }
    const controller = new AbortController();
    res.once('close', () => {
      // The client went away before its answer: stop what runs for it (chDB settles at once).
      if (!res.writableFinished) controller.abort();
      // Shutting down: a connection this answer leaves idle is closed now, not at keep-alive's end.
      if (closing) server.closeIdleConnections();
    });
    let queryId: string | undefined;
    let body: RequestBody | undefined;
    try {
      const request = parseRequestUrl(url);
      queryId = request.queryId;
      authenticate(req, request, expected);
      if (/^multipart\//i.test(req.headers['content-type'] ?? '')) {
        throw new GatewayError(48, 'NOT_IMPLEMENTED', 'The gateway does not take multipart query parameters (use_multipart_params); send them in the URL');
      }
      body = requestBody(req);
      const { stream } = body;
      const result = await limiter.run(controller.signal, () => execute(request, stream, controller.signal));
      await reply(req, res, request, result);
    } catch (err) {
      const answer = errorReply(err);
      if (answer.status >= 500 && answer.code !== 394) logger?.warn({ err, query_id: queryId }, 'ClickHouse gateway request failed');
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(answer.status, {
          'Content-Type': 'text/plain; charset=UTF-8',
          'X-ClickHouse-Exception-Code': String(answer.code),
          ...(queryId ? { 'X-ClickHouse-Query-Id': queryId } : {}),
        });
        res.end(answer.body);
      }
    } finally {
      // Whatever of the body was not read is read and dropped, so the connection stays usable.
      body?.drain();
    }
  }

  const server = http.createServer({ maxHeaderSize: 1024 * 1024 }, (req, res) => void handle(req, res));
  // Longer than @clickhouse/client's idle socket TTL (2.5 s), as a ClickHouse server's is.
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://${displayHost(options.host)}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      }),
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Credentials as ClickHouse takes them: HTTP Basic, X-ClickHouse-User/Key, or user/password in the URL. */
function authenticate(req: http.IncomingMessage, request: GatewayRequest, expected: Buffer): void {
  let user = request.user ?? 'default';
  let password = request.password ?? '';
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  const key = req.headers['x-clickhouse-key'];
  if (basic) {
    const text = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = text.indexOf(':');
    [user, password] = colon < 0 ? [text, ''] : [text.slice(0, colon), text.slice(colon + 1)];
  } else if (typeof key === 'string') {
    const header = req.headers['x-clickhouse-user'];
    [user, password] = [typeof header === 'string' ? header : 'default', key];
  }
  // Digests of equal length, compared in constant time: the time taken says nothing of the password.
  const matches = timingSafeEqual(digest(password), expected);
  if (!matches || user !== 'default') {
    throw new GatewayError(516, 'AUTHENTICATION_FAILED', `${user}: Authentication failed: password is incorrect, or there is no user with such name`);
  }
}

interface RequestBody {
  stream: Readable;
  /** Reads and drops what is left, so the next request on the connection can be parsed. */
  drain(): void;
}

/** The request body, decompressed as its Content-Encoding says. */
function requestBody(req: http.IncomingMessage): RequestBody {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decoder =
    encoding === 'gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : encoding === 'br' ? zlib.createBrotliDecompress() : undefined;
  if (!decoder && encoding !== 'identity') throw new GatewayError(48, 'NOT_IMPLEMENTED', `Unsupported Content-Encoding: ${encoding}`);
  if (!decoder) {
    return {
      stream: req,
      drain() {
        if (!req.readableEnded) req.resume();
      },
    };
  }
  req.pipe(decoder);
  // pipe() does not pass on a client that goes away mid-body: the decoder would wait for the rest.
  req.once('close', () => {
    if (!req.complete) decoder.destroy(new Error('The client closed the request before the end of its body'));
  });
  return {
    stream: decoder,
    drain() {
      if (req.readableEnded) return;
      req.unpipe(decoder);
      decoder.destroy();
      req.resume();
    },
  };
}

/** The whole stream as one Buffer; over `limit` bytes it stops with QUERY_IS_TOO_LARGE. */
async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > limit) throw new GatewayError(229, 'QUERY_IS_TOO_LARGE', `The request body exceeds the gateway's limit of ${limit} bytes`);
    chunks.push(buf);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

async function reply(req: http.IncomingMessage, res: http.ServerResponse, request: GatewayRequest, result: Result): Promise<void> {
  const headers: http.OutgoingHttpHeaders = { 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Query-Id': request.queryId };
  if (result.format) headers['X-ClickHouse-Format'] = result.format;
  if (result.summary) headers['X-ClickHouse-Summary'] = JSON.stringify(result.summary);
  let body = result.body;
  const accepted = String(req.headers['accept-encoding'] ?? '');
  const encoding = request.compressResponse ? ['gzip', 'deflate', 'br'].find((e) => new RegExp(`\\b${e}\\b`).test(accepted)) : undefined;
  if (encoding) {
    body = await (encoding === 'gzip' ? gzip(body) : encoding === 'deflate' ? deflate(body) : brotli(body));
    headers['Content-Encoding'] = encoding;
  }
  headers['Content-Length'] = body.length;
  res.writeHead(200, headers).end(body);
}

/** At most `active` requests run; up to `queued` more wait their turn, in order (a request closed while waiting leaves the queue). */
function createLimiter(active: number, queued: number) {
  const slots = semaphore(active, {
    max: queued,
    full: () => new GatewayError(202, 'TOO_MANY_SIMULTANEOUS_QUERIES', `Too many simultaneous queries: ${queued} are waiting`),
  });
  const aborted = () => new GatewayError(394, 'QUERY_WAS_CANCELLED', 'The client closed the request before it ran');
  return {
    async run<T>(signal: AbortSignal, task: () => Promise<T>): Promise<T> {
      await slots.acquire({ signal, aborted });
      try {
        return await task();
      } finally {
        slots.release();
      }
    },
  };
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
