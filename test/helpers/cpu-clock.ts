/**
 * A stopwatch of this process's CPU time (user + system, every thread), for the tests that guard
 * against a slow algorithm (quadratic, exponential): unlike wall time, other processes on a busy
 * machine do not stretch it. Time spent waiting (I/O, timers) is not counted.
 */
export function cpuClock(): { ms(): number } {
  const start = process.cpuUsage();
  return {
    ms() {
      const used = process.cpuUsage(start);
      return (used.user + used.system) / 1000;
    },
  };
}
