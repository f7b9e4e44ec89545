import type { Deps } from '../deps.ts';
import * as attempt from './attempt.ts';
import { asTask, transportAttemptTask } from './task-entry.ts';

/**
 * The send-attempt machine's task functions with their error contract (send/task-entry.ts). The
 * Lambda entries and the local runner both bind exactly these.
 */
export const sendAttemptTasks = {
  Claim: asTask<Deps, Parameters<typeof attempt.claim>[1], Awaited<ReturnType<typeof attempt.claim>>>(
    attempt.claim,
  ),
  Record: asTask<Deps, Parameters<typeof attempt.record>[1], Awaited<ReturnType<typeof attempt.record>>>(
    attempt.record,
  ),
  Transport: transportAttemptTask,
};
