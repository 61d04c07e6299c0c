// Timing helpers for benchmarks: warm up, repeat, report the median and spread. Figures only, never pass/fail.
export interface Timing {
  median: number;
  min: number;
  max: number;
  runs: number;
}

export async function time(fn: () => unknown, runs = 15, warmup = 3): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return {
    median: samples[Math.floor(samples.length / 2)],
    min: samples[0],
    max: samples[samples.length - 1],
    runs,
  };
}

export function line(label: string, t: Timing, goalMs?: number): string {
  const goal = goalMs ? `  (${(t.median / goalMs).toFixed(2)}x of the ${goalMs} ms goal)` : "";
  return `${label.padEnd(44)} median ${t.median.toFixed(2).padStart(8)} ms  min ${t.min.toFixed(2)}  max ${t.max.toFixed(2)}  n=${t.runs}${goal}`;
}
