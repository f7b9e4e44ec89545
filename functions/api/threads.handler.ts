import { loadLambdaDeps } from '../env.ts';
import { s3Blobs } from '../store/blobs.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { threadsApi } from './threads.api.ts';

/** Lambda entry of the `threads` route group (functions/api/routes.ts): it reads received raw messages for attachments. */
export const handler: (event: ApiEvent) => Promise<ApiResult> = threadsApi(
  await loadLambdaDeps('api-threads', { blobs: s3Blobs }),
);
