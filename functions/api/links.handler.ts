import { loadLambdaDeps } from '../env.ts';
import { s3Blobs } from '../store/blobs.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { linksApi } from './links.api.ts';

/** Lambda entry of the `links` route group (functions/api/routes.ts). */
export const handler: (event: ApiEvent) => Promise<ApiResult> = linksApi(
  await loadLambdaDeps('api-links', { blobs: s3Blobs }),
);
