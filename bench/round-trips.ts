import type { DbHooks } from '../functions/store/dynamodb.ts';

/**
 * Counts the sequential DynamoDB round trips on a request's critical path: a hook around the
 * table's calls records when each call started and answered while `recording` is on; calls that
 * overlap (a `Promise.all`) fall into one wave, and the number of waves is the number of round trips
 * a request waited for one after another. Run it on sequential requests only.
 */
export class RoundTrips {
  recording = false;
  private calls: { start: number; end: number; label: string }[] = [];

  install(hooks: DbHooks): void {
    hooks.aroundCall(async (operation, _input, next) => {
      if (!this.recording) return next();
      const start = performance.now();
      try {
        return await next();
      } finally {
        this.calls.push({ start, end: performance.now(), label: operation });
      }
    });
  }

  /** The waves recorded since the last call, each the commands it held; the recording is cleared. */
  take(): string[][] {
    const sorted = [...this.calls].sort((a, b) => a.start - b.start);
    this.calls = [];
    const waves: { end: number; labels: string[] }[] = [];
    for (const c of sorted) {
      const last = waves.at(-1);
      if (last && c.start < last.end) {
        last.labels.push(c.label);
        last.end = Math.max(last.end, c.end);
      } else waves.push({ end: c.end, labels: [c.label] });
    }
    return waves.map((w) => w.labels);
  }
}
