/**
 * What `npm start` says when one of the services it runs beside the API (DynamoDB Local, the local
 * SES) goes away on its own: which one, how it ended, and the last lines it printed.
 */
export interface ServiceExit {
  /** The service, as a user knows it: "DynamoDB Local", "the local SES". */
  name: string;
  /** The process's exit code, or null when a signal ended it or it is not a process. */
  code: number | null;
  signal: string | null;
  /** Why it ended when no exit code says it (an in-process server's error). */
  reason?: string;
  /** The last lines it printed (stdout and stderr, in order), newest last. */
  lines: string[];
}

/** The last `max` lines written to one or more streams, kept as they arrive. */
export class OutputTail {
  private readonly kept: string[] = [];
  private partial = '';

  constructor(private readonly max = 20) {}

  push(chunk: Buffer | string): void {
    const parts = (this.partial + chunk.toString()).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    for (const line of parts) this.keep(line);
  }

  lines(): string[] {
    return this.partial ? [...this.kept, this.partial].slice(-this.max) : [...this.kept];
  }

  private keep(line: string) {
    this.kept.push(line);
    if (this.kept.length > this.max) this.kept.shift();
  }
}

/** The message `npm start` prints before it stops the stack. */
export function describeExit(exit: ServiceExit): string {
  const how =
    exit.code !== null
      ? `exit code ${exit.code}`
      : exit.signal
        ? `killed by ${exit.signal}`
        : (exit.reason ?? 'no reason given');
  const lines = exit.lines.filter((l) => l.trim() !== '');
  return [
    `pmail: ${exit.name} exited (${how}); the stack cannot serve without it.`,
    ...(lines.length > 0 ? [`Its last lines:`, ...lines.map((l) => `  | ${l}`)] : ['It printed nothing.']),
    'pmail: stopping everything.',
    '',
  ].join('\n');
}
