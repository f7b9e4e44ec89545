import { loadLambdaDeps } from '../env.ts';
import { sendAttemptTasks } from './tasks.ts';

/** Lambda entries of the send-attempt machine's tasks (statemachines/send-attempt.asl.json). */
const deps = await loadLambdaDeps('send-attempt');

export const claim = sendAttemptTasks.Claim(deps);
export const transport = sendAttemptTasks.Transport(deps);
export const record = sendAttemptTasks.Record(deps);
