import * as attempt from './attempt.ts';
import { asTask, transportAttemptTask } from './task-entry.ts';

/**
 * The send-attempt machine's task functions with their error contract (send/task-entry.ts). The
 * Lambda entries and the local runner both bind exactly these.
 */
export const sendAttemptTasks = {
  Claim: asTask(attempt.claim),
  Record: asTask(attempt.record),
  Transport: transportAttemptTask,
};
