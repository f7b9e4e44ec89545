import { loadLambdaDeps } from '../env.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { tenantsApi } from './tenants.api.ts';

/** Lambda entry of the `tenants` route group (functions/api/routes.ts). */
export const handler: (event: ApiEvent) => Promise<ApiResult> = tenantsApi(
  await loadLambdaDeps('api-tenants', {}),
);
