import { loadLambdaDeps } from '../env.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { webhooksApi } from './webhooks.api.ts';

/** Lambda entry of the `webhooks` route group (functions/api/routes.ts). */
export const handler: (event: ApiEvent) => Promise<ApiResult> = webhooksApi(
  await loadLambdaDeps('api-webhooks', {}),
);
