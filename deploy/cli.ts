import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkDeploy, formatReport } from './check.ts';
import { loadRecording } from './recording.ts';
import { synthTemplate } from './synth.ts';

/**
 * `npm run check:deploy [-- --template <file>]`: the stack as synthesized now (or the template
 * given) against the AWS calls the last `npm test` recorded. Exit 1 naming every refused request.
 */
const root = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { template: { type: 'string' }, 'stack-name': { type: 'string' } },
});
const template = values.template ? JSON.parse(readFileSync(values.template, 'utf8')) : await synthTemplate();
const recording = loadRecording(root);
if (recording.files.length === 0) {
  console.error(
    'No recording of AWS calls: run npm test first (every test file records its Lambdas’ calls).',
  );
  process.exit(2);
}
const report = await checkDeploy(template, recording, { root, stackName: values['stack-name'] });
console.log(formatReport(report));
process.exit(report.refused.length + report.problems.length > 0 ? 1 : 0);
