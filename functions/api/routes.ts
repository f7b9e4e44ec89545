/**
 * The HTTP routes of the API and the Lambda (route group) that serves each. The CDK api construct
 * and the local HTTP server both read this table, so production and `npm start` route alike.
 */
export type RouteGroup =
  | 'messages'
  | 'identities'
  | 'tenants'
  | 'links'
  | 'events'
  | 'webhooks'
  | 'keys'
  | 'directory'
  | 'meta'
  | 'domains'
  | 'templates'
  | 'mcp'
  | 'console'
  | 'threads';

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
    path: '/v1/tenants/{tenant_id}/messages',
    group: 'messages',
    operation: 'searchTenantMessages',
  },
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/messages/batch',
    group: 'messages',
    operation: 'sendMessageBatch',
  },
  {
    method: 'GET',
    path: '/v1/identities/{identity_id}/messages/{message_id}',
    group: 'messages',
    operation: 'getMessage',
  },
  {
    method: 'GET',
    path: '/v1/identities/{identity_id}/messages/{message_id}/raw',
    group: 'messages',
    operation: 'getMessageRaw',
  },
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/messages/{message_id}/reply',
    group: 'messages',
    operation: 'replyMessage',
  },
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/messages/{message_id}/reply-all',
    group: 'messages',
    operation: 'replyAllMessage',
  },
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/messages/{message_id}/forward',
    group: 'messages',
    operation: 'forwardMessage',
  },
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/messages/{message_id}/cancel',
    group: 'messages',
    operation: 'cancelMessage',
  },
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/messages/{message_id}/resolve',
    group: 'messages',
    operation: 'resolveMessage',
  },
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/messages/{message_id}/retry',
    group: 'messages',
    operation: 'retryMessage',
  },
  // Conversations and attachments (functions/api/threads.api.ts).
  {
    method: 'GET',
    path: '/v1/identities/{identity_id}/threads',
    group: 'threads',
    operation: 'listThreads',
  },
  {
    method: 'GET',
    path: '/v1/identities/{identity_id}/threads/{thread_id}',
    group: 'threads',
    operation: 'getThread',
  },
  {
    method: 'GET',
    path: '/v1/identities/{identity_id}/messages/{message_id}/attachments/{attachment_id}',
    group: 'threads',
    operation: 'getAttachment',
  },
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/messages/{message_id}/approve',
    group: 'messages',
    operation: 'approveMessage',
  },
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/messages/{message_id}/reject',
    group: 'messages',
    operation: 'rejectMessage',
  },
  // Labels as state (functions/api/messages/labels.ts, threads/labels.ts).
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/messages/{message_id}/labels',
    group: 'messages',
    operation: 'labelMessage',
  },
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/threads/{thread_id}/labels',
    group: 'threads',
    operation: 'labelThread',
  },
  // Held mail (functions/api/messages/release.ts, delete-message.ts, list-held.ts).
  {
    method: 'POST',
    path: '/v1/identities/{identity_id}/messages/{message_id}/release',
    group: 'messages',
    operation: 'releaseMessage',
  },
  {
    method: 'DELETE',
    path: '/v1/identities/{identity_id}/messages/{message_id}',
    group: 'messages',
    operation: 'deleteMessage',
  },
  {
    method: 'GET',
    path: '/v1/identities/{identity_id}/held',
    group: 'messages',
    operation: 'listHeld',
  },
  { method: 'GET', path: '/v1/identities/{identity_id}', group: 'identities', operation: 'getIdentity' },
  {
    method: 'PATCH',
    path: '/v1/identities/{identity_id}',
    group: 'identities',
    operation: 'updateIdentity',
  },
  {
    method: 'DELETE',
    path: '/v1/identities/{identity_id}',
    group: 'identities',
    operation: 'deleteIdentity',
  },
  { method: 'POST', path: '/v1/tenants', group: 'directory', operation: 'createTenant' },
  { method: 'GET', path: '/v1/tenants', group: 'directory', operation: 'listTenants' },
  { method: 'GET', path: '/v1/tenants/{tenant_id}', group: 'directory', operation: 'getTenant' },
  { method: 'PATCH', path: '/v1/tenants/{tenant_id}', group: 'directory', operation: 'updateTenant' },
  {
    method: 'GET',
    path: '/v1/tenants/{tenant_id}/policy',
    group: 'directory',
    operation: 'getTenantPolicy',
  },
  {
    method: 'PATCH',
    path: '/v1/tenants/{tenant_id}/policy',
    group: 'directory',
    operation: 'updateTenantPolicy',
  },
  {
    method: 'POST',
    path: '/v1/tenants/{tenant_id}/identities',
    group: 'directory',
    operation: 'createIdentity',
  },
  {
    method: 'GET',
    path: '/v1/tenants/{tenant_id}/identities',
    group: 'directory',
    operation: 'listIdentities',
  },
  { method: 'POST', path: '/v1/keys', group: 'keys', operation: 'createKey' },
  { method: 'GET', path: '/v1/keys', group: 'keys', operation: 'listKeys' },
  { method: 'GET', path: '/v1/keys/{key_id}', group: 'keys', operation: 'getKey' },
  { method: 'DELETE', path: '/v1/keys/{key_id}', group: 'keys', operation: 'revokeKey' },
  { method: 'POST', path: '/v1/keys/{key_id}/rotate', group: 'keys', operation: 'rotateKey' },
  { method: 'GET', path: '/v1/me', group: 'keys', operation: 'getMe' },
  { method: 'GET', path: '/v1/audit-events', group: 'keys', operation: 'listAuditEvents' },
  { method: 'GET', path: '/health', group: 'meta', operation: 'getHealth' },
  { method: 'GET', path: '/openapi.json', group: 'meta', operation: 'getOpenApi' },
  {
    method: 'GET',
    path: '/v1/tenants/{tenant_id}/suppressions',
    group: 'tenants',
    operation: 'listSuppressions',
  },
  {
    method: 'POST',
    path: '/v1/tenants/{tenant_id}/suppressions',
    group: 'tenants',
    operation: 'createSuppression',
  },
  {
    method: 'DELETE',
    path: '/v1/tenants/{tenant_id}/suppressions/{address}',
    group: 'tenants',
    operation: 'deleteSuppression',
  },
  {
    method: 'GET',
    path: '/v1/tenants/{tenant_id}/lists/{direction}/{kind}',
    group: 'tenants',
    operation: 'listListEntries',
  },
  {
    method: 'PUT',
    path: '/v1/tenants/{tenant_id}/lists/{direction}/{kind}/{entry}',
    group: 'tenants',
    operation: 'putListEntry',
  },
  {
    method: 'GET',
    path: '/v1/tenants/{tenant_id}/lists/{direction}/{kind}/{entry}',
    group: 'tenants',
    operation: 'getListEntry',
  },
  {
    method: 'DELETE',
    path: '/v1/tenants/{tenant_id}/lists/{direction}/{kind}/{entry}',
    group: 'tenants',
    operation: 'deleteListEntry',
  },
  { method: 'GET', path: '/v1/links/{token}', group: 'links', operation: 'getLink' },
  { method: 'GET', path: '/v1/events', group: 'events', operation: 'listEvents' },
  { method: 'POST', path: '/v1/stream/tickets', group: 'events', operation: 'createStreamTicket' },
  { method: 'POST', path: '/v1/webhooks', group: 'webhooks', operation: 'createWebhook' },
  { method: 'GET', path: '/v1/webhooks', group: 'webhooks', operation: 'listWebhooks' },
  { method: 'GET', path: '/v1/webhooks/{webhook_id}', group: 'webhooks', operation: 'getWebhook' },
  { method: 'DELETE', path: '/v1/webhooks/{webhook_id}', group: 'webhooks', operation: 'deleteWebhook' },
  {
    method: 'GET',
    path: '/v1/webhooks/{webhook_id}/deliveries',
    group: 'webhooks',
    operation: 'listWebhookDeliveries',
  },
  { method: 'POST', path: '/v1/webhooks/{webhook_id}/test', group: 'webhooks', operation: 'testWebhook' },
  { method: 'POST', path: '/v1/tenants/{tenant_id}/domains', group: 'domains', operation: 'createDomain' },
  { method: 'GET', path: '/v1/tenants/{tenant_id}/domains', group: 'domains', operation: 'listDomains' },
  {
    method: 'GET',
    path: '/v1/tenants/{tenant_id}/domains/{domain_id}',
    group: 'domains',
    operation: 'getDomain',
  },
  {
    method: 'PATCH',
    path: '/v1/tenants/{tenant_id}/domains/{domain_id}',
    group: 'domains',
    operation: 'updateDomain',
  },
  {
    method: 'DELETE',
    path: '/v1/tenants/{tenant_id}/domains/{domain_id}',
    group: 'domains',
    operation: 'deleteDomain',
  },
  {
    method: 'POST',
    path: '/v1/tenants/{tenant_id}/domains/{domain_id}/verify',
    group: 'domains',
    operation: 'verifyDomain',
  },
  {
    method: 'POST',
    path: '/v1/tenants/{tenant_id}/templates',
    group: 'templates',
    operation: 'createTemplate',
  },
  {
    method: 'GET',
    path: '/v1/tenants/{tenant_id}/templates',
    group: 'templates',
    operation: 'listTemplates',
  },
  {
    method: 'GET',
    path: '/v1/tenants/{tenant_id}/templates/{name}',
    group: 'templates',
    operation: 'getTemplate',
  },
  {
    method: 'PUT',
    path: '/v1/tenants/{tenant_id}/templates/{name}',
    group: 'templates',
    operation: 'updateTemplate',
  },
  {
    method: 'DELETE',
    path: '/v1/tenants/{tenant_id}/templates/{name}',
    group: 'templates',
    operation: 'deleteTemplate',
  },
  {
    method: 'POST',
    path: '/v1/tenants/{tenant_id}/templates/{name}/preview',
    group: 'templates',
    operation: 'previewTemplate',
  },
  // The MCP server (Streamable HTTP, stateless): JSON-RPC in the body, functions/api/mcp.api.ts.
  { method: 'POST', path: '/mcp', group: 'mcp', operation: 'mcp' },
  // The web console (functions/api/console.api.ts): its page and its content-hashed files.
  { method: 'GET', path: '/console', group: 'console', operation: 'getConsole' },
  { method: 'GET', path: '/console/{asset}', group: 'console', operation: 'getConsoleAsset' },
];

/** The handler entry of each route group: file under functions/, exported name. */
export const routeGroupEntries: Record<RouteGroup, { entry: string; handler: string }> = {
  messages: { entry: 'functions/api/messages.handler.ts', handler: 'handler' },
  identities: { entry: 'functions/api/identities.handler.ts', handler: 'handler' },
  tenants: { entry: 'functions/api/tenants.handler.ts', handler: 'handler' },
  links: { entry: 'functions/api/links.handler.ts', handler: 'handler' },
  events: { entry: 'functions/api/events.handler.ts', handler: 'handler' },
  webhooks: { entry: 'functions/api/webhooks.handler.ts', handler: 'handler' },
  domains: { entry: 'functions/api/domains.handler.ts', handler: 'handler' },
  templates: { entry: 'functions/api/templates.handler.ts', handler: 'handler' },
  keys: { entry: 'functions/api/keys.handler.ts', handler: 'handler' },
  directory: { entry: 'functions/api/directory.handler.ts', handler: 'handler' },
  meta: { entry: 'functions/api/meta.handler.ts', handler: 'handler' },
  mcp: { entry: 'functions/api/mcp.handler.ts', handler: 'handler' },
  console: { entry: 'functions/api/console.handler.ts', handler: 'handler' },
  threads: { entry: 'functions/api/threads.handler.ts', handler: 'handler' },
};
