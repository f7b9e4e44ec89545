import middy from '@middy/core';
import { loadLambdaDeps } from '../env.ts';
import { eventsApi } from './events.api.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { mcpApi } from './mcp.api.ts';
import { messagesApi } from './messages.api.ts';

/**
 * Lambda entry of the `mcp` route group (functions/api/routes.ts): the MCP server, whose tools call
 * the messages and events route groups in this same function.
 */
const deps = await loadLambdaDeps('api-mcp');

export const handler = middy<ApiEvent, ApiResult>().handler(
  mcpApi(deps, { messages: messagesApi(deps), events: eventsApi(deps) }),
);
