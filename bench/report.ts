export interface BenchReport {
  readonly name: string;
  /** Figure name (with its unit, e.g. `parse+validate 1000 nodes (ms)`) → value. */
  readonly figures: Readonly<Record<string, number | string>>;
  readonly notes?: string;
}

/** Median of `runs` timings of `fn`, in milliseconds, after `warmup` untimed runs. */
export async function medianMs(fn: () => unknown, runs = 7, warmup = 2): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return Number((times[Math.floor(times.length / 2)] ?? 0).toFixed(3));
}
