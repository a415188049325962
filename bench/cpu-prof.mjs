// Preload that CPU-profiles the process it is loaded into, like `node --cpu-prof` (which Node 20
// refuses in NODE_OPTIONS). bench/run.ts `--cpu-prof DIR` passes it to the service only:
// NODE_OPTIONS='--import <this file>' and BENCH_CPU_PROF_DIR=DIR. The profile (main thread,
// 1 ms sampling like --cpu-prof) is written to DIR/service-<pid>.cpuprofile when the process exits.
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector';

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: Number(process.env.BENCH_CPU_PROF_INTERVAL_US ?? 1000) });
  session.post('Profiler.start');
  // A session on the process's own thread answers synchronously, so this works in 'exit'.
  process.on('exit', () => {
    session.post('Profiler.stop', (err, res) => {
      if (err) process.stderr.write(`cpu-prof: ${err.message}\n`);
      else fs.writeFileSync(path.join(dir, `service-${process.pid}.cpuprofile`), JSON.stringify(res.profile));
    });
  });
}
