import { routeNotFound } from '../core/errors.ts';
import type { Identity } from '../core/model.ts';
import type { BaseDeps } from '../deps.ts';
import { authenticate, type Caller, type Permission, requirePermission } from './auth.ts';
import { type ApiResult, header, type RouteCall, routeGroup } from './http.ts';

/** A call past its group's shared step: the request, the calling key and what the step found (`Found`). */
export type KeyedCall<Found = unknown> = RouteCall & { key: Caller } & Found;

/**
 * One API operation of a route group (one file each under functions/api/{group}/): the permission
 * its group's shared step checks, and its handler. Without a permission the handler checks the key
 * itself.
 */
export interface KeyedRoute<Found = unknown, D extends BaseDeps = BaseDeps> {
  permission?: Permission;
  handle: (deps: D, call: KeyedCall<Found>) => Promise<ApiResult>;
}

/** An operation on the key's tenant, as its group's step found it (`tenants`, `templates`, `webhooks`). */
export type TenantRoute = KeyedRoute<{ tenantId: string }>;

/** An operation on an identity in the key's scope, as its group's step found it (`threads`). */
export type IdentityRoute<D extends BaseDeps = BaseDeps> = KeyedRoute<{ identity: Identity }, D>;

/** What a group's shared step finds for its operations `R`: what their handlers are given. */
type FoundBy<R> = R extends KeyedRoute<infer Found, never> ? Found : never;

/**
 * A route group: the calling key (401 unless it authenticates), the route's operation among the
 * group's (404 route_not_found for a route the group does not serve), the group's shared step on
 * them (`step`: its checks in order, and what it finds for the operation), then the operation.
 * `R` is the group's operation type (`KeyedRoute<never>` admits a handler given any call).
 */
export function operationGroup<D extends BaseDeps, R extends KeyedRoute<never, D>>(
  deps: D,
  operations: Record<string, R>,
  step: (key: Caller, operation: R, call: RouteCall) => FoundBy<R> | Promise<FoundBy<R>>,
) {
  return routeGroup(deps, async (call) => {
    const key = await authenticate(deps, header(call.event, 'authorization'));
    const operation = operations[call.route.operation];
    if (!operation) throw routeNotFound();
    const found = await step(key, operation, call);
    // R is a KeyedRoute<FoundBy<R>>: its handler takes the call with what the step found.
    const handler = operation as unknown as KeyedRoute<FoundBy<R>, D>;
    return handler.handle(deps, { ...call, key, ...(found as object) } as KeyedCall<FoundBy<R>>);
  });
}

/**
 * A route group whose shared step is the key and the operation's permission, if it names one
 * (`keys`, `identities`, `directory`).
 */
export function keyedGroup(deps: BaseDeps, operations: Record<string, KeyedRoute>) {
  return operationGroup(deps, operations, (key, operation) => {
    if (operation.permission) requirePermission(key, operation.permission);
    return {};
  });
}
