import { sfnDispatcher } from '../adapters/step-functions.ts';
import { loadLambdaDeps } from '../env.ts';
import { s3Blobs } from '../store/blobs.ts';
/** Lambda entry of the `messages` route group (functions/api/routes.ts). */
import type { ApiEvent, ApiResult } from './http.ts';
import { messagesApi } from './messages.api.ts';

export const handler: (event: ApiEvent) => Promise<ApiResult> = messagesApi(
  await loadLambdaDeps('api-messages', { blobs: s3Blobs, dispatcher: sfnDispatcher }),
);
