import type { Permission } from '../../core/keys.ts';
import type { Identity, Tenant } from '../../core/model.ts';
import type { DepsFor } from '../../lambda-ports.ts';
import type { Caller } from '../auth.ts';
import type { ApiResult, RouteCall } from '../http.ts';

/** An operation of the `messages` group that reads its own caller (the submit operations: their first read). */
/** The ports of the messages Lambda (functions/lambda-ports.ts): the base ports, the blob store, the dispatcher. */
export type MessagesDeps = DepsFor<'api-messages'>;

export type MessagesRoute = (deps: MessagesDeps, call: RouteCall) => Promise<ApiResult>;

/** A call past the group's shared step: the caller, holding the permission, and the identity in its scope. */
export interface ScopedCall extends RouteCall {
  key: Caller;
  identity: Identity;
  tenant: Tenant;
}

/** An operation behind the shared step (functions/api/messages.api.ts): the permission it needs and its handler. */
export interface ScopedRoute {
  permission: Permission;
  handle: (deps: MessagesDeps, call: ScopedCall) => Promise<ApiResult>;
}
