import { invokeSmtpProbe } from '../adapters/lambda-smtp-probe.ts';
import { sesIdentities } from '../adapters/ses-identities.ts';
import { loadLambdaDeps } from '../env.ts';
import { checkAllDomains } from './lifecycle.ts';
import { dnsMxLookup } from './mx-lookup.ts';
import { PROBE_TIMEOUT_MS } from './smtp-probe.ts';

/**
 * Lambda entry of the scheduled domain check (lib/domains.ts: an EventBridge rule). `smtp` domains
 * are probed by the SMTP transport Lambda (PMAIL_SMTP_PROBE_FUNCTION), which alone reads relay
 * credentials.
 */
const deps = await loadLambdaDeps('domain-check', {});
const identities = sesIdentities({ region: process.env.AWS_REGION ?? 'us-east-1' });
const probeFunction = process.env.PMAIL_SMTP_PROBE_FUNCTION;
// Set when the stack receives mail (lib/inbound.ts): the check reports each domain's MX.
const inboundRegion = process.env.PMAIL_INBOUND_REGION;

export async function handler(): Promise<{ checked: number; failed: number }> {
  return checkAllDomains(deps, {
    identities,
    ...(probeFunction ? { probeSmtp: invokeSmtpProbe(probeFunction) } : {}),
    probeTimeoutMs: PROBE_TIMEOUT_MS.check,
    ...(inboundRegion ? { inboundRegion, resolveMx: dnsMxLookup } : {}),
  });
}
