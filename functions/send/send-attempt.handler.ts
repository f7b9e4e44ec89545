import { sqsEvents } from '../adapters/sqs-queues.ts';
import { sfnDispatcher } from '../adapters/step-functions.ts';
import { loadLambdaDeps } from '../env.ts';
import { s3Blobs } from '../store/blobs.ts';
import { sendAttemptTasks } from './tasks.ts';

/**
 * Lambda entries of the send-attempt machine's Claim and Record tasks
 * (statemachines/send-attempt.asl.json); each transport task has its own entry beside this one
 * (functions/send/*-transport.handler.ts, listed in functions/transports/tasks.ts).
 */
const deps = await loadLambdaDeps('send-attempt', {
  blobs: s3Blobs,
  dispatcher: sfnDispatcher,
  events: sqsEvents,
});

export const claim = sendAttemptTasks.Claim(deps);
export const record = sendAttemptTasks.Record(deps);
