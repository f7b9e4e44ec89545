import { loadLambdaDeps } from '../env.ts';
import { eventsApi } from './events.api.ts';
import type { ApiEvent, ApiResult } from './http.ts';

/** Lambda entry of the `events` route group (functions/api/routes.ts). */
export const handler: (event: ApiEvent) => Promise<ApiResult> = eventsApi(
  await loadLambdaDeps('api-events', {}),
);
