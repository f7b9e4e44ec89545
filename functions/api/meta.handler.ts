import { readFileSync } from 'node:fs';
import { sfnMachinesStatus } from '../adapters/step-functions.ts';
import { loadLambdaDeps } from '../env.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { metaApi } from './meta.api.ts';

/**
 * Lambda entry of the `meta` route group (functions/api/routes.ts). lib/api.ts places the contract
 * (openapi.yaml as JSON) beside the bundle and sets PMAIL_VERSION.
 */

export const handler: (event: ApiEvent) => Promise<ApiResult> = metaApi(
  await loadLambdaDeps('api-meta', {}),
  {
    version: process.env.PMAIL_VERSION ?? 'unknown',
    openapi: async () => readFileSync(new URL('./openapi.json', import.meta.url), 'utf8'),
    stateMachines: sfnMachinesStatus(),
  },
);
