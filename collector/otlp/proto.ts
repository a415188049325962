import path from 'node:path';
import protobuf from 'protobufjs';
import { packagePath } from '../../core/os/package-files.js';

/** The repo's `proto/` directory, resolved from this module so it works from any cwd. */
export const PROTO_DIR = packagePath('proto/');

const FILES = ['opentelemetry/proto/collector/trace/v1/trace_service.proto', 'google/rpc/status.proto', 'google/rpc/error_details.proto'];

/** The protobufjs types the receivers encode and decode. */
export interface OtlpTypes {
  root: protobuf.Root;
  ExportTraceServiceRequest: protobuf.Type;
  ExportTraceServiceResponse: protobuf.Type;
  Status: protobuf.Type;
  RetryInfo: protobuf.Type;
  Any: protobuf.Type;
}

let loaded: OtlpTypes | undefined;

/**
 * proto3 strings must be UTF-8 and protobufjs refuses a message that breaks the rule. The
 * receivers do not (decode-protobuf.ts reads strings without the check); these types decode as
 * leniently, so whoever decodes a request with them (the tests' reference decoding) sees what
 * the receivers see.
 */
function acceptInvalidUtf8(ns: protobuf.NamespaceBase): void {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type) {
      for (const field of nested.fieldsArray) {
        // protobufjs keeps resolved edition features on `_features`; its decoder reads utf8_validation there.
        const features = (field as unknown as { _features?: Record<string, unknown> })._features;
        if (field.type === 'string' && features) features.utf8_validation = 'NONE';
      }
    }
    if (nested instanceof protobuf.Namespace) acceptInvalidUtf8(nested);
  }
}

function load(): OtlpTypes {
  const root = new protobuf.Root();
  // google/protobuf/*.proto (Any, Duration) are bundled with protobufjs; everything else is ours.
  root.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : path.join(PROTO_DIR, target));
  root.loadSync(FILES, { keepCase: false });
  root.resolveAll();
  acceptInvalidUtf8(root);
  return {
    root,
    ExportTraceServiceRequest: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    ExportTraceServiceResponse: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
    Status: root.lookupType('google.rpc.Status'),
    RetryInfo: root.lookupType('google.rpc.RetryInfo'),
    Any: root.lookupType('google.protobuf.Any'),
  };
}

/**
 * The OTLP trace types, parsed from the .proto files on first use and then reused: the schema
 * is constant, so this is a cache of a pure computation, not shared mutable state.
 */
export function otlpTypes(): OtlpTypes {
  loaded ??= load();
  return loaded;
}
