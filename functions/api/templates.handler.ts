import middy from '@middy/core';
import { loadLambdaDeps } from '../env.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { templatesApi } from './templates.api.ts';

/** Lambda entry of the `templates` route group (functions/api/routes.ts). */
export const handler = middy<ApiEvent, ApiResult>().handler(
  templatesApi(await loadLambdaDeps('api-templates', {})),
);
