// Generates src/schema.ts (the API's types) from the repository's openapi.yaml with
// openapi-typescript. `render()` is also what the staleness test compares the file with.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const here = dirname(fileURLToPath(import.meta.url));
export const specPath = join(here, '../../../openapi.yaml');
export const schemaPath = join(here, '../src/schema.ts');

const HEADER = '// Generated from openapi.yaml by `npm run generate -w @pmail/client`. Do not edit.\n\n';

export async function render() {
  const ast = await openapiTS(readFileSync(specPath, 'utf8'), { silent: true });
  return HEADER + astToString(ast);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(schemaPath, await render());
  console.log(`wrote ${schemaPath}`);
}
