import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { HeaderBag } from '../../core/project-context.js';
import type { Collector } from '../collector.js';
import { GrpcCode, toWireError } from '../../core/wire-error.js';
import { grpcPeerAddress } from '../../core/auth/client-address.js';
import { OtlpDecodeError } from './errors.js';
import type { ExportGate } from './project.js';
import { encodeExportResponse, encodeStatus, partialSuccessOf } from './response.js';

/** What the OTLP/gRPC receiver needs (STYLE 3: dependencies come in). */
export interface OtlpGrpcDeps {
  collector: Pick<Collector, 'admit' | 'ingestOtlp'>;
  /** 0 picks a free port; the bound one is returned. */
  port: number;
  /** Interface to bind; default all IPv4 interfaces. */
  host?: string;
  /** grpc.max_receive_message_length, also enforced after decompression by grpc-js. */
  maxMessageBytes: number;
  /** Who may export into which project (authentication, permission, rate limit), from the call's metadata. */
  gate: ExportGate;
  logger: Logger;
  /** How long close() waits for in-flight exports before cancelling them. Default 10 s. */
  shutdownTimeoutMs?: number;
}

/** A running OTLP/gRPC receiver. */
export interface OtlpGrpcServer {
  port: number;
  /** Stops accepting calls, lets in-flight exports finish, then force-closes what is left. */
  close(): Promise<void>;
}

/** The fully qualified method OTLP exporters call (trace_service.proto). */
export const TRACE_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

const identity = (b: Buffer): Buffer => b;

/**
 * TraceService as a raw-bytes service: grpc-js hands over the (already decompressed) message and
 * the receiver decodes it, so an undecodable request is INVALID_ARGUMENT rather than the
 * INTERNAL grpc-js gives when a deserializer throws.
 */
const TRACE_SERVICE: grpc.ServiceDefinition = {
  Export: {
    path: TRACE_EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

function metadataHeaders(metadata: grpc.Metadata): HeaderBag {
  const out: HeaderBag = {};
  for (const [key, value] of Object.entries(metadata.getMap())) {
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

/**
 * The status for a failed export (OTLP spec, "OTLP/gRPC Response"): retryable conditions are
 * RESOURCE_EXHAUSTED / UNAVAILABLE with a google.rpc.RetryInfo in `grpc-status-details-bin`
 * (the spec's throttling signal), bad input INVALID_ARGUMENT, anything else INTERNAL.
 */
function errorStatus(err: unknown): Partial<grpc.StatusObject> {
  const failure = toWireError(err);
  const metadata = new grpc.Metadata();
  if (failure.retryAfterSeconds !== undefined) {
    metadata.set('grpc-status-details-bin', encodeStatus(failure.grpcCode, failure.message, 'protobuf', failure.retryAfterSeconds));
    metadata.set('retry-after', String(Math.ceil(failure.retryAfterSeconds)));
  }
  return { code: failure.grpcCode, details: failure.message, metadata };
}

function logFailure(logger: Logger, err: unknown): void {
  const { grpcCode } = toWireError(err);
  if (grpcCode === GrpcCode.INTERNAL) logger.error({ err }, 'OTLP/gRPC export failed');
  else if (grpcCode === GrpcCode.UNAVAILABLE || grpcCode === GrpcCode.RESOURCE_EXHAUSTED) {
    logger.warn({ code: grpcCode, reason: (err as Error).message }, 'OTLP/gRPC export refused, client should retry');
  } else if (err instanceof OtlpDecodeError) logger.debug({ reason: err.message }, 'OTLP/gRPC export undecodable');
  else logger.debug({ reason: (err as Error).message }, 'OTLP/gRPC export rejected');
}

function exportHandler(deps: OtlpGrpcDeps): grpc.handleUnaryCall<Buffer, Buffer> {
  return (call, callback) => {
    const run = async (): Promise<Buffer> => {
      const { projectId } = await deps.gate(metadataHeaders(call.metadata), {}, grpcPeerAddress(call.getPeer()));
      deps.collector.admit();
      const outcome = await deps.collector.ingestOtlp(projectId, call.request, 'protobuf');
      const partial = outcome && partialSuccessOf(outcome);
      if (partial) deps.logger.debug({ projectId, rejected: partial.rejectedSpans }, 'OTLP/gRPC export partially accepted');
      // Partial success is still OK, with partial_success set (OTLP spec, "Partial Success").
      return encodeExportResponse(partial, 'protobuf');
    };
    run().then(
      (response) => callback(null, response),
      (err: unknown) => {
        logFailure(deps.logger, err);
        callback(errorStatus(err));
      },
    );
  };
}

function address(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Starts the OTLP/gRPC trace receiver (`TraceService/Export`). grpc-js accepts
 * `grpc-encoding: gzip` (and deflate) itself and answers RESOURCE_EXHAUSTED for messages over
 * `maxMessageBytes`, before or after decompression. The project comes from the `x-project-id`
 * or `x-workspace-id` metadata and the credential (`x-api-key` or `authorization`), through `gate`.
 */
export async function startOtlpGrpcServer(deps: OtlpGrpcDeps): Promise<OtlpGrpcServer> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': deps.maxMessageBytes,
  });
  server.addService(TRACE_SERVICE, { Export: exportHandler(deps) });
  const host = deps.host ?? '0.0.0.0';
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address(host, deps.port), grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound)));
  });
  deps.logger.info({ host, port }, 'OTLP/gRPC receiver listening');
  const timeoutMs = deps.shutdownTimeoutMs ?? 10_000;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        deps.logger.warn({ port }, 'OTLP/gRPC receiver did not drain in time, forcing shutdown');
        server.forceShutdown();
        resolve();
      }, timeoutMs);
      timer.unref();
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    }));
  return { port, close };
}
