import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchIngest } from './ingest.js';
import { benchOtlp, type Transport } from './otlp.js';
import { benchWritePath, type WritePathKind } from './write-path.js';

/** `npm run bench -- [scenario] [--quick]`: runs the benchmarks and writes bench/results/<scenario>-<time>.json. */
const { positionals, values } = parseArgs({ allowPositionals: true, options: { quick: { type: 'boolean', default: false }, concurrency: { type: 'string' }, paths: { type: 'string' }, probes: { type: 'string' } } });
const scenario = positionals[0] ?? 'ingest';
const quick = values.quick;

const scenarios: Record<string, () => Promise<unknown>> = {
  ingest: () =>
    benchIngest({
      concurrency: Number(values.concurrency ?? 64),
      seconds: quick ? 5 : 20,
      spansPerTrace: 10,
      targetSpans: quick ? 50_000 : 1_000_000,
      reads: quick ? 100 : 500,
    }),
  otlp: () => otlp(['http', 'grpc']),
  'otlp-http': () => otlp(['http']),
  'otlp-grpc': () => otlp(['grpc']),
  // --paths embedded,kafka (default both); --probes N: latency probes pending at once (default 1)
  'write-path': () =>
    benchWritePath({
      paths: (values.paths ?? 'embedded,kafka').split(',') as WritePathKind[],
      concurrency: Number(values.concurrency ?? 8),
      seconds: quick ? 8 : 30,
      spansPerPayload: 512,
      spansPerTrace: 16,
      poolSize: 16,
      probeIntervalMs: 200,
      probePollMs: 20,
      probeInFlight: Number(values.probes ?? 1),
      probeTimeoutMs: 60_000,
      burstConcurrency: 32,
      burstSeconds: 5,
      visibleTimeoutSeconds: 120,
    }),
};

function otlp(transports: Transport[]) {
  const concurrency = Number(values.concurrency ?? 8);
  return benchOtlp({ transports, concurrency, seconds: quick ? 5 : 30, spansPerPayload: 512, spansPerTrace: 16, poolSize: 16, grpcChannels: 4, visibleTimeoutSeconds: 120 });
}

const run = scenarios[scenario];
if (!run) {
  console.error(`unknown scenario '${scenario}'; one of: ${Object.keys(scenarios).join(', ')}`);
  process.exit(2);
}
const result = await run();
const dir = path.join(import.meta.dirname, 'results');
fs.mkdirSync(dir, { recursive: true });
const file = path.join(dir, `${scenario}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
fs.writeFileSync(file, JSON.stringify({ scenario, quick, result }, null, 2));
console.log(`results: ${file}`);
process.exit(0);
