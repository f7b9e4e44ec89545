import { readFile } from 'node:fs/promises';
import middy from '@middy/core';
import { loadLambdaDeps } from '../env.ts';
import { consoleApi } from './console.api.ts';
import type { ApiEvent, ApiResult } from './http.ts';

/**
 * Lambda entry of the `console` route group (functions/api/routes.ts). lib/api.ts builds the
 * console (console/build.ts) and places it beside the bundle as console-assets.json, read on the
 * first request.
 */
export const handler = middy<ApiEvent, ApiResult>().handler(
  consoleApi(await loadLambdaDeps('api-console', {}), {
    assets: async () => JSON.parse(await readFile(new URL('./console-assets.json', import.meta.url), 'utf8')),
  }),
);
