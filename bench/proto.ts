import path from 'node:path';
import protobuf from 'protobufjs';

/**
 * The OTLP and google.rpc types the load generators encode and decode, loaded from the repo's
 * `proto/` directory by the bench itself (not through the collector's modules, which the write
 * path under test may change).
 */
const PROTO_DIR = path.join(import.meta.dirname, '..', 'proto');
const FILES = ['opentelemetry/proto/collector/trace/v1/trace_service.proto', 'google/rpc/status.proto', 'google/rpc/error_details.proto'];

let types: { ExportTraceServiceRequest: protobuf.Type; Status: protobuf.Type; RetryInfo: protobuf.Type } | undefined;

export function protoTypes() {
  if (types) return types;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : path.join(PROTO_DIR, target));
  root.loadSync(FILES, { keepCase: false });
  root.resolveAll();
  types = {
    ExportTraceServiceRequest: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    Status: root.lookupType('google.rpc.Status'),
    RetryInfo: root.lookupType('google.rpc.RetryInfo'),
  };
  return types;
}

/** The delay (ms) of a google.rpc.RetryInfo in a gRPC `grpc-status-details-bin`, if there is one. */
export function retryInfoMs(statusDetails: Buffer): number | undefined {
  try {
    const { Status, RetryInfo } = protoTypes();
    const status = Status.decode(statusDetails) as unknown as { details?: Array<{ type_url?: string; typeUrl?: string; value: Uint8Array }> };
    const any = status.details?.find((d) => (d.typeUrl ?? d.type_url ?? '').endsWith('google.rpc.RetryInfo'));
    if (!any) return undefined;
    const info = RetryInfo.decode(any.value) as unknown as { retryDelay?: { seconds?: number | { toNumber(): number }; nanos?: number } };
    const d = info.retryDelay;
    if (!d) return undefined;
    const seconds = typeof d.seconds === 'object' ? d.seconds.toNumber() : Number(d.seconds ?? 0);
    return seconds * 1000 + (d.nanos ?? 0) / 1e6;
  } catch {
    return undefined;
  }
}
