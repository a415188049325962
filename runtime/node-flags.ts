/**
 * The V8 flags every launcher of the service passes to `node` (`npm start`, the `agent-eval`
 * command's shebang, the container's entry point, the tests' and benches' service processes);
 * test/unit/node-flags.test.ts checks that they agree.
 *
 * `--max-semi-space-size=64` (MB; Node 20's default is 16): a request's objects live until its
 * batch is inserted (~100 ms under load), long enough to survive two scavenges of a 16 MB young
 * generation at ingest's allocation rate and be promoted, so the old generation's concurrent
 * marking ran on V8's worker threads all the time. With 64 MB they die young: V8's worker
 * threads' CPU per span halves (28 -> 14 µs per JSON ingest span) for ~60 MB more RSS
 * (docs/benchmarks.md, "Young generation").
 */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=64'] as const;
