/**
 * The HTTP routes of the API and the Lambda (route group) that serves each. The CDK api construct
 * and the local HTTP server both read this table, so production and `npm start` route alike.
 */
export type RouteGroup = 'messages';

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** API Gateway path syntax: `{name}` for a path parameter. */
  path: string;
  group: RouteGroup;
  /** operationId in openapi.yaml */
  operation: string;
}

export const routes: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/messages',
    group: 'messages',
    operation: 'sendMessage',
  },
  {
    method: 'GET',
    path: '/v1/identities/{identity_id}/messages',
    group: 'messages',
    operation: 'listMessages',
  },
  {
    method: 'GET',
    path: '/v1/identities/{identity_id}/messages/{message_id}',
    group: 'messages',
    operation: 'getMessage',
  },
];

/** The handler entry of each route group: file under functions/, exported name. */
export const routeGroupEntries: Record<RouteGroup, { entry: string; handler: string }> = {
  messages: { entry: 'functions/api/messages.handler.ts', handler: 'handler' },
};
