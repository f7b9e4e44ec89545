/**
 * Where the CLI writes and which environment it reads: the process's by default; a test runs the
 * program in-process with its own (bin/cli/program.ts › runPmail).
 */
export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  env: NodeJS.ProcessEnv;
  /** stderr is a terminal: `--wait` draws its progress line there. */
  stderrTty: boolean;
}

export const io: Io = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  env: process.env,
  stderrTty: process.stderr.isTTY === true,
};

/** A line on stdout (the newline added when missing). */
export const out = (s: string) => io.out(s.endsWith('\n') ? s : `${s}\n`);
/** A line on stderr. */
export const err = (s: string) => io.err(s.endsWith('\n') ? s : `${s}\n`);
/** One JSON document on one line of stdout (`--json`). */
export const printJson = (doc: unknown) => out(JSON.stringify(doc));

/** Email text is untrusted: control characters (escape sequences) never reach the terminal. */
export function terminalSafe(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return s.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '\uFFFD');
}
