import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyWebsocketEventV2,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';
import { PmailError } from '../core/errors.ts';
import type { DepsFor } from '../lambda-ports.ts';
import { errorFields } from '../log.ts';
import { admitStream, type StreamGrant } from './stream/admit.ts';
import { closeStream, openStream } from './stream/connect.ts';

/**
 * The WebSocket API's Lambdas (lib/stream.ts): the `$connect` REQUEST authorizer, and the
 * `$connect`, `$disconnect` and `$default` routes. The local server runs the same admit and
 * connect on its upgrade (functions/local/stream-gateway.ts).
 */

/** A grant as authorizer context (API Gateway keeps only strings, numbers and booleans). */
export function grantContext(g: StreamGrant): Record<string, string | number> {
  return {
    tenant_id: g.tenant_id,
    key_id: g.key_id,
    key_hash: g.key_hash,
    grant: JSON.stringify({
      identity_ids: g.identity_ids,
      filter: g.filter,
      after: g.after,
      key_ends_at: g.key_ends_at,
    }),
  };
}

export function grantOf(context: Record<string, unknown>): StreamGrant {
  const rest = JSON.parse(String(context.grant ?? '{}')) as Omit<
    StreamGrant,
    'tenant_id' | 'key_id' | 'key_hash'
  >;
  return {
    ...rest,
    tenant_id: String(context.tenant_id),
    key_id: String(context.key_id),
    key_hash: String(context.key_hash),
  };
}

/**
 * The `$connect` authorizer: the key (header) or the ticket (query) admitted, the grant passed on
 * as context; an unauthenticated request answers 401 (`Unauthorized`), any other refusal a Deny
 * (403). API Gateway sends no body of pmail's on a refused upgrade; `npm start` answers the
 * error's JSON.
 */
export function streamAuthorizer(deps: DepsFor<'stream-authorizer'>) {
  return async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const headers = Object.fromEntries(
      Object.entries(event.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
    );
    const connectionId = (event.requestContext as { connectionId?: string }).connectionId ?? '';
    const policy = (effect: 'Allow' | 'Deny') => ({
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: event.methodArn }],
    });
    try {
      const grant = await admitStream(deps, {
        connectionId,
        authorization: headers.authorization ?? undefined,
        query: (event.queryStringParameters ?? {}) as Record<string, string>,
      });
      return { principalId: grant.key_id, policyDocument: policy('Allow'), context: grantContext(grant) };
    } catch (err) {
      if (!(err instanceof PmailError)) throw err;
      if (['unauthenticated', 'key_revoked', 'key_expired'].includes(err.code))
        throw new Error('Unauthorized');
      return { principalId: 'refused', policyDocument: policy('Deny'), context: { code: err.code } };
    }
  };
}

/** `$connect` records the connection (on `gateway`), `$disconnect` forgets it, `$default` ignores what a client sends. */
export function streamRoutes(deps: DepsFor<'stream-connect'>, gateway: string) {
  return async (event: APIGatewayProxyWebsocketEventV2): Promise<{ statusCode: number }> => {
    const { routeKey, connectionId } = event.requestContext;
    const context = (event.requestContext as { authorizer?: Record<string, unknown> }).authorizer ?? {};
    try {
      if (routeKey === '$connect') await openStream(deps, gateway, connectionId, grantOf(context));
      if (routeKey === '$disconnect' && context.tenant_id)
        await closeStream(deps, String(context.tenant_id), connectionId);
      return { statusCode: 200 };
    } catch (err) {
      deps.log.error('stream route failed', { route: routeKey, ...errorFields(err) });
      return { statusCode: 500 };
    }
  };
}
