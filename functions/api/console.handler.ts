import { readFile } from 'node:fs/promises';
import { ulidFrom } from '../deps.ts';
import { jsonLogger } from '../log.ts';
import { consoleApi } from './console.api.ts';
import type { ApiEvent, ApiResult } from './http.ts';

/**
 * Lambda entry of the `console` route group (functions/api/routes.ts). lib/api.ts builds the
 * console (console/build.ts) and places it beside the bundle as console-assets.json, read on the
 * first request. It serves files only: no table, no keys, no secrets (lib/pmail-stack.ts grants it
 * none), so it takes a request id and a logger rather than the API's dependencies.
 */
const clock = () => Date.now();

export const handler: (event: ApiEvent) => Promise<ApiResult> = consoleApi(
  { newId: ulidFrom(clock), log: jsonLogger({ service: 'api-console' }) },
  {
    assets: async () => JSON.parse(await readFile(new URL('./console-assets.json', import.meta.url), 'utf8')),
    streamUrl: process.env.PM_STREAM_URL || undefined,
  },
);
