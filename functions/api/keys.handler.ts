import middy from '@middy/core';
import { loadLambdaDeps } from '../env.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { keysApi } from './keys.api.ts';

/** Lambda entry of the `keys` route group (functions/api/routes.ts). */
export const handler = middy<ApiEvent, ApiResult>().handler(keysApi(await loadLambdaDeps('api-keys', {})));
