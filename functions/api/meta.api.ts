import { routeNotFound } from '../core/errors.ts';
import type { BaseDeps } from '../deps.ts';
import type { DepsFor } from '../lambda-ports.ts';
import { json, routeGroup } from './http.ts';

/**
 * The `meta` route group, without authentication: `GET /health` (the version, and whether
 * the table and the state machines answer) and `GET /openapi.json` (the contract, served). The ports
 * say how: the Lambda bundle carries the document and asks Step Functions; the local server reads
 * openapi.yaml and runs the machines in process.
 */
export interface MetaPorts {
  version: string;
  /** The OpenAPI document as JSON text. */
  openapi: () => Promise<string>;
  /** Whether the send state machines answer (`not_configured` where none is set). */
  stateMachines: () => Promise<'ok' | 'unreachable' | 'not_configured'>;
}

export function metaApi(deps: DepsFor<'api-meta'>, ports: MetaPorts) {
  let openapi: string | undefined;
  return routeGroup(deps, async ({ route, requestId }) => {
    switch (route.operation) {
      case 'getHealth': {
        const [table, machines] = await Promise.all([
          tableCheck(deps),
          ports.stateMachines().catch(() => 'unreachable' as const),
        ]);
        const ok = table === 'ok' && machines !== 'unreachable';
        return json(
          200,
          {
            status: ok ? 'ok' : 'degraded',
            version: ports.version,
            checks: { table, state_machines: machines },
          },
          requestId,
          { 'cache-control': 'no-store' },
        );
      }
      case 'getOpenApi':
        openapi ??= await ports.openapi();
        return {
          statusCode: 200,
          headers: { 'content-type': 'application/json', 'request-id': requestId },
          body: openapi,
        };
      default:
        throw routeNotFound();
    }
  });
}

/** One consistent read of an item that never exists: the table answers, with this function's rights. */
async function tableCheck(deps: BaseDeps): Promise<'ok' | 'unreachable'> {
  try {
    await deps.db.get({
      TableName: deps.db.table,
      Key: { pk: 'HEALTH', sk: 'HEALTH' },
      ConsistentRead: true,
    });
    return 'ok';
  } catch (err) {
    deps.log.warn('health: table unreachable', { error: String(err) });
    return 'unreachable';
  }
}
