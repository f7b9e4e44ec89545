import { loadLambdaDeps } from '../env.ts';
import { sendAttemptTasks } from './tasks.ts';

/**
 * Lambda entries of the send-attempt machine's Claim and Record tasks
 * (statemachines/send-attempt.asl.json); each transport task has its own entry under functions/transports/.
 */
const deps = await loadLambdaDeps('send-attempt');

export const claim = sendAttemptTasks.Claim(deps);
export const record = sendAttemptTasks.Record(deps);
