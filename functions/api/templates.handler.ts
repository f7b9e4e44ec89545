import { loadLambdaDeps } from '../env.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { templatesApi } from './templates.api.ts';

/** Lambda entry of the `templates` route group (functions/api/routes.ts). */
export const handler: (event: ApiEvent) => Promise<ApiResult> = templatesApi(
  await loadLambdaDeps('api-templates', {}),
);
