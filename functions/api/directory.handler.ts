import { loadLambdaDeps } from '../env.ts';
import { directoryApi } from './directory.api.ts';
import type { ApiEvent, ApiResult } from './http.ts';

/** Lambda entry of the `directory` route group (functions/api/routes.ts). */
export const handler: (event: ApiEvent) => Promise<ApiResult> = directoryApi(
  await loadLambdaDeps('api-directory', {}),
);
