import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, expect } from 'vitest';
import { CALLS_DIR, recordingFileOf } from '../../deploy/recording.ts';
import { startRecording } from '../../functions/local/aws-calls.ts';

/**
 * Every test file records the AWS calls its Lambdas make (functions/local/aws-calls.ts), kept per
 * file in `.pmail/aws-calls/`: `npm run check:deploy` and test/deploy/permissions.test.ts read them.
 * A file run again replaces its own recording only.
 */
const recording = startRecording();

afterAll(() => {
  const file = expect.getState().testPath ?? '';
  if (!file) return;
  const root = join(import.meta.dirname, '../..');
  mkdirSync(join(root, CALLS_DIR), { recursive: true });
  writeFileSync(
    join(root, recordingFileOf(relative(root, file))),
    JSON.stringify({ file: relative(root, file), outside: recording.outside(), calls: recording.calls() }),
  );
});
