import middy from '@middy/core';
import { loadLambdaDeps } from '../env.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { webhooksApi } from './webhooks.api.ts';

/** Lambda entry of the `webhooks` route group (functions/api/routes.ts). */
export const handler = middy<ApiEvent, ApiResult>().handler(
  webhooksApi(await loadLambdaDeps('api-webhooks', {})),
);
