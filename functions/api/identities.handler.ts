import { loadLambdaDeps } from '../env.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { identitiesApi } from './identities.api.ts';

/** Lambda entry of the `identities` route group (functions/api/routes.ts). */
export const handler: (event: ApiEvent) => Promise<ApiResult> = identitiesApi(
  await loadLambdaDeps('api-identities', {}),
);
