import { loadLambdaDeps } from '../env.ts';
import { sfnDispatcher } from '../send/dispatcher.ts';
import { sweep } from './sweeper.ts';

/** The sweeper Lambda, run by an EventBridge schedule (lib/sweeper.ts). */
const deps = await loadLambdaDeps('sweeper', { dispatcher: sfnDispatcher });

export const handler = async () => sweep(deps);
