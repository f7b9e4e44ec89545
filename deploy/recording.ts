import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PortCall } from '../functions/local/aws-calls.ts';

/** Where each test file's recording is kept (test/support/record-aws-calls.ts writes it). */
export const CALLS_DIR = '.pmail/aws-calls';

export const recordingFileOf = (testFile: string): string =>
  join(CALLS_DIR, `${testFile.replace(/[^a-zA-Z0-9.-]+/g, '_')}.json`);

export interface Recording {
  calls: PortCall[];
  /** Test files with a recording. */
  files: string[];
  /** Test files of the suite that have none yet (never run in this checkout). */
  missing: string[];
}

/** Every test file under test/ (what `npm test` runs). */
function testFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.test.ts')) out.push(path);
    }
  };
  walk('test');
  return out.sort();
}

/** The recordings of the suite's files as they last ran (a recording of a deleted file is left out). */
export function loadRecording(root: string): Recording {
  const calls: PortCall[] = [];
  const files: string[] = [];
  const missing: string[] = [];
  for (const file of testFiles(root)) {
    const path = join(root, recordingFileOf(file));
    if (!existsSync(path)) {
      missing.push(file);
      continue;
    }
    const saved = JSON.parse(readFileSync(path, 'utf8')) as { calls: PortCall[] };
    calls.push(...saved.calls);
    files.push(file);
  }
  return { calls, files, missing };
}
