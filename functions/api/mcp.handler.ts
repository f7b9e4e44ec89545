import { sfnDispatcher } from '../adapters/step-functions.ts';
import { loadLambdaDeps } from '../env.ts';
import { s3Blobs } from '../store/blobs.ts';
import { eventsApi } from './events.api.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { mcpApi } from './mcp.api.ts';
import { messagesApi } from './messages.api.ts';
import { threadsApi } from './threads.api.ts';

/**
 * Lambda entry of the `mcp` route group (functions/api/routes.ts): the MCP server, whose tools call
 * the messages, events and threads route groups in this same function.
 */
const deps = await loadLambdaDeps('api-mcp', { blobs: s3Blobs, dispatcher: sfnDispatcher });

export const handler: (event: ApiEvent) => Promise<ApiResult> = mcpApi(deps, {
  messages: messagesApi(deps),
  events: eventsApi(deps),
  threads: threadsApi(deps),
});
