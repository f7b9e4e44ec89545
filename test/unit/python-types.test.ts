import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The Python client's types are generated from openapi.yaml: whoever changes the API regenerates them. */
describe('packages/python/pmail/types.py', () => {
  it('is what `npm run generate:python` makes of openapi.yaml now', async () => {
    const generator = join(import.meta.dirname, '../../packages/python/scripts/generate-types.mjs');
    const { render, typesPath } = await import(generator);
    const stored = readFileSync(typesPath, 'utf8');
    expect(stored === render(), 'stale: run `npm run generate:python`').toBe(true);
  });

  it('names every error code of openapi.yaml with its status', async () => {
    const generator = join(import.meta.dirname, '../../packages/python/scripts/generate-types.mjs');
    const { typesPath } = await import(generator);
    const { ERRORS } = await import('../../functions/api/http.ts');
    const stored = readFileSync(typesPath, 'utf8');
    for (const [code, spec] of Object.entries(ERRORS)) expect(stored).toContain(`"${code}": ${spec.status},`);
  });
});
