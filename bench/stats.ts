/** Small statistics and load helpers for the benchmarks. Numbers are reported, never asserted. */

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / (sorted.length || 1);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean,
  };
}

export interface PoolRun<T> {
  results: T[];
  /** Per-task latency in ms, in task order. */
  latencies: number[];
  elapsedMs: number;
  /** CPU time this Node process spent during the run (user + system), in ms: the API, the client, and any background work. */
  cpuMs: number;
}

/**
 * Run `n` tasks with at most `concurrency` in flight (a closed loop: each worker starts its next task
 * as soon as its previous one answered), timing each task and the whole run.
 */
export async function pool<T>(
  n: number,
  concurrency: number,
  task: (i: number) => Promise<T>,
): Promise<PoolRun<T>> {
  const results = new Array<T>(n);
  const latencies = new Array<number>(n);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      const t0 = performance.now();
      results[i] = await task(i);
      latencies[i] = performance.now() - t0;
    }
  };
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  const c = process.cpuUsage(c0);
  return { results, latencies, elapsedMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
}

/** A fixed-decimal number, right-aligned by the table printer. */
export const fixed = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

/** A ratio `a / b` printed as `1.23x`. */
export const ratio = (a: number, b: number, digits = 2) =>
  b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(digits)}x` : 'n/a';

/**
 * A plain-text table: columns padded to their widest cell; columns listed in `right` are
 * right-aligned (numbers).
 */
export function table(header: string[], rows: string[][], right: number[] = []): string {
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => (right.includes(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}
