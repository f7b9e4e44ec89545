import { isTransient, StoreUnavailable } from '../store/db.ts';
import type { TransportTaskSpec } from '../transports/tasks.ts';
import type { Transport } from '../transports/transport.ts';
import { runTransport, type TransportTaskDeps, type TransportTaskInput } from './transport-task.ts';

/**
 * The error contract of the send-attempt machine's tasks: infrastructure errors leave as
 * `StoreUnavailable` (retried by the ASL for Claim and Record only). Kept apart from Claim and
 * Record (send/tasks.ts) so a transport's Lambda bundles its transport and not Record's loopback
 * delivery (which parses mail through the inbound ingest).
 */
export function asTask<D, I, O>(fn: (deps: D, input: I) => Promise<O>) {
  return (deps: D) =>
    async (input: I): Promise<O> => {
      try {
        return await fn(deps, input);
      } catch (err) {
        throw isTransient(err) ? new StoreUnavailable(err) : err;
      }
    };
}

/** One transport task (functions/transports/tasks.ts): its adapter, behind the claim and its sending mark. */
export const transportAttemptTask = (transport: Transport, spec: TransportTaskSpec) =>
  asTask((deps: TransportTaskDeps, input: TransportTaskInput) => runTransport(deps, transport, spec, input));
