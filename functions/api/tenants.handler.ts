import middy from '@middy/core';
import { loadLambdaDeps } from '../env.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { tenantsApi } from './tenants.api.ts';

/** Lambda entry of the `tenants` route group (functions/api/routes.ts). */
export const handler = middy<ApiEvent, ApiResult>().handler(
  tenantsApi(await loadLambdaDeps('api-tenants', {})),
);
