import middy from '@middy/core';
import { loadLambdaDeps } from '../env.ts';
import { directoryApi } from './directory.api.ts';
import type { ApiEvent, ApiResult } from './http.ts';

/** Lambda entry of the `directory` route group (functions/api/routes.ts). */
export const handler = middy<ApiEvent, ApiResult>().handler(
  directoryApi(await loadLambdaDeps('api-directory', {})),
);
