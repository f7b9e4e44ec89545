import { lambdaDeps } from '../env.ts';
import { sweep } from './sweeper.ts';

/** The sweeper Lambda, run by an EventBridge schedule (lib/sweeper.ts). */
const deps = lambdaDeps('sweeper');

export const handler = async () => sweep(deps);
