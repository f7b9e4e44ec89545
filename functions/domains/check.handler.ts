import { loadLambdaDeps } from '../env.ts';
import { checkAllDomains } from './lifecycle.ts';
import { sesIdentities } from './ses-identities.ts';

/** Lambda entry of the scheduled domain check (lib/domains.ts: an EventBridge rule). */
const deps = await loadLambdaDeps('domain-check');
const identities = sesIdentities({ region: process.env.AWS_REGION ?? 'us-east-1' });

export async function handler(): Promise<{ checked: number; failed: number }> {
  return checkAllDomains(deps, identities);
}
