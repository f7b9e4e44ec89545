import { loadLambdaDeps } from '../env.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { keysApi } from './keys.api.ts';

/** Lambda entry of the `keys` route group (functions/api/routes.ts). */
export const handler: (event: ApiEvent) => Promise<ApiResult> = keysApi(await loadLambdaDeps('api-keys', {}));
