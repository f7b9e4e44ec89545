import type { Deps } from '../deps.ts';
import { isTransient, StoreUnavailable } from '../store/db.ts';
import type { TransportTaskSpec } from '../transports/tasks.ts';
import type { Transport } from '../transports/transport.ts';
import * as attempt from './attempt.ts';
import { runTransport, type TransportTaskDeps, type TransportTaskInput } from './transport-task.ts';

/**
 * The send-attempt machine's task functions with their error contract: infrastructure errors leave
 * as `StoreUnavailable` (retried by the ASL for Claim and Record only). The Lambda
 * entries and the local runner both bind exactly these.
 */
function asTask<D, I, O>(fn: (deps: D, input: I) => Promise<O>) {
  return (deps: D) =>
    async (input: I): Promise<O> => {
      try {
        return await fn(deps, input);
      } catch (err) {
        throw isTransient(err) ? new StoreUnavailable(err) : err;
      }
    };
}

export const sendAttemptTasks = {
  Claim: asTask<Deps, Parameters<typeof attempt.claim>[1], Awaited<ReturnType<typeof attempt.claim>>>(
    attempt.claim,
  ),
  Record: asTask<Deps, Parameters<typeof attempt.record>[1], Awaited<ReturnType<typeof attempt.record>>>(
    attempt.record,
  ),
  /** One transport task (functions/transports/tasks.ts): its adapter, behind the claim and its sending mark. */
  Transport: (transport: Transport, spec: TransportTaskSpec) =>
    asTask((deps: TransportTaskDeps, input: TransportTaskInput) =>
      runTransport(deps, transport, spec, input),
    ),
};
