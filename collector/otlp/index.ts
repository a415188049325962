/**
 * The OTLP trace receivers: OTLP/HTTP (binary protobuf and JSON) as a Koa router, OTLP/gRPC as
 * a grpc-js server, and the decoders both share (ExportTraceServiceRequest, binary or JSON -> RawSpan[]).
 */
export { createOtlpHttpRouter, OTLP_HTTP_TRACES_PATH, type OtlpHttpDeps } from './http-receiver.js';
export { startOtlpGrpcServer, TRACE_EXPORT_PATH, type OtlpGrpcDeps, type OtlpGrpcServer } from './grpc-receiver.js';
export { decodeJsonRequest, requestToRawSpans } from './decode.js';
export { decodeProtobufRequest } from './decode-protobuf.js';
export { OtlpDecodeError } from './errors.js';
export { otlpTypes, PROTO_DIR, type OtlpTypes } from './proto.js';
export { encodeExportResponse, encodeStatus, partialSuccessOf, type OtlpEncoding, type PartialSuccess } from './response.js';
