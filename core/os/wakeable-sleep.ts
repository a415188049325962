/** A sleep that `wake()` ends at once: a backoff that a stop must not wait out. */
export interface WakeableSleep {
  sleep: (ms: number) => Promise<void>;
  /** Ends the sleep under way, if any. */
  wake: () => void;
}

export function wakeableSleep(): WakeableSleep {
  let wake: (() => void) | undefined;
  return {
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      }),
    wake: () => wake?.(),
  };
}
