/** At most `limit` holders at once; the others wait in order. */
export function semaphore(limit: number) {
  let free = limit;
  const waiting: Array<() => void> = [];
  return {
    async acquire(): Promise<void> {
      if (free > 0) {
        free--;
        return;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}
