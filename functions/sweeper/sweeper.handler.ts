import { sfnDispatcher } from '../adapters/step-functions.ts';
import { loadLambdaDeps } from '../env.ts';
import { sweep } from './sweeper.ts';

/** The sweeper Lambda, run by an EventBridge schedule (lib/sweeper.ts). */
const deps = await loadLambdaDeps('sweeper', { dispatcher: sfnDispatcher });

export const handler = async () => sweep(deps);
