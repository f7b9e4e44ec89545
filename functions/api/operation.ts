import { routeNotFound } from '../core/errors.ts';
import type { Deps } from '../deps.ts';
import { authenticate, type Caller, type Permission, requirePermission } from './auth.ts';
import { type ApiResult, header, type RouteCall, routeGroup } from './http.ts';

/** A call past its group's shared step: the request, the calling key and what the step found (`Found`). */
export type KeyedCall<Found = unknown> = RouteCall & { key: Caller } & Found;

/**
 * One API operation of a route group (one file each under functions/api/{group}/): the permission
 * its group's shared step checks, and its handler. Without a permission the handler checks the key
 * itself.
 */
export interface KeyedRoute<Found = unknown> {
  permission?: Permission;
  handle: (deps: Deps, call: KeyedCall<Found>) => Promise<ApiResult>;
}

/** An operation on the key's tenant, as its group's shared step found it (`tenants`, `webhooks`). */
export type TenantRoute = KeyedRoute<{ tenantId: string }>;

/**
 * The first part of every shared step: the calling key (401 unless it authenticates), then the
 * route's operation among the group's (404 route_not_found for a route the group does not serve).
 */
export async function callerAndOperation<R>(
  deps: Deps,
  call: RouteCall,
  operations: Record<string, R>,
): Promise<{ key: Caller; operation: R }> {
  const key = await authenticate(deps, header(call.event, 'authorization'));
  const operation = operations[call.route.operation];
  if (!operation) throw routeNotFound();
  return { key, operation };
}

/**
 * A route group whose shared step is the key and the operation's permission, if it names one
 * (`keys`, `identities`, `directory`).
 */
export function keyedGroup(deps: Deps, operations: Record<string, KeyedRoute>) {
  return routeGroup(deps, async (call) => {
    const { key, operation } = await callerAndOperation(deps, call, operations);
    if (operation.permission) requirePermission(key, operation.permission);
    return operation.handle(deps, { ...call, key });
  });
}
