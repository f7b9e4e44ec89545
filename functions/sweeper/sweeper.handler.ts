import { sfnDispatcher } from '../adapters/step-functions.ts';
import { loadLambdaDeps } from '../env.ts';
import { wholeDeps } from '../lambda-ports.ts';
import { sweep } from './sweeper.ts';

/** The sweeper Lambda, run by an EventBridge schedule (lib/sweeper.ts). */
const deps = wholeDeps(await loadLambdaDeps('sweeper', { dispatcher: sfnDispatcher }));

export const handler = async () => sweep(deps);
