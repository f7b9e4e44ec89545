import type { Deps } from '../deps.ts';
import { isTransient, StoreUnavailable } from '../store/db.ts';
import * as attempt from './attempt.ts';

/**
 * The send-attempt machine's task functions with their error contract: infrastructure errors leave
 * as `StoreUnavailable` (retried by the ASL for Claim and Record only; DESIGN § 5.2). The Lambda
 * entries and the local runner both bind exactly these.
 */
function asTask<I, O>(fn: (deps: Deps, input: I) => Promise<O>) {
  return (deps: Deps) =>
    async (input: I): Promise<O> => {
      try {
        return await fn(deps, input);
      } catch (err) {
        throw isTransient(err) ? new StoreUnavailable(err) : err;
      }
    };
}

export const sendAttemptTasks = {
  Claim: asTask(attempt.claim),
  Transport: asTask(attempt.transport),
  Record: asTask(attempt.record),
};
