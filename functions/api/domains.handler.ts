import { invokeSmtpProbe } from '../adapters/lambda-smtp-probe.ts';
import { sesIdentities } from '../adapters/ses-identities.ts';
import { dnsMxLookup } from '../domains/mx-lookup.ts';
import { loadLambdaDeps } from '../env.ts';
import { secretsManagerStore } from '../store/relay-secrets.store.ts';
import { domainsApi } from './domains.api.ts';
import type { ApiEvent, ApiResult } from './http.ts';

/**
 * Lambda entry of the `domains` route group (functions/api/routes.ts). It writes `smtp` domains'
 * credentials (never reads them) and has the SMTP transport Lambda run the relay probe
 * (PMAIL_SMTP_PROBE_FUNCTION), since only that function may read them.
 */
const probeFunction = process.env.PMAIL_SMTP_PROBE_FUNCTION;
// Set when the stack receives mail (lib/inbound.ts): new SES domains get the MX record to publish.
const inboundRegion = process.env.PMAIL_INBOUND_REGION;

export const handler: (event: ApiEvent) => Promise<ApiResult> = domainsApi(
  await loadLambdaDeps('api-domains', {}),
  {
    identities: sesIdentities({ region: process.env.AWS_REGION ?? 'us-east-1' }),
    configurationSet: process.env.PMAIL_SES_CONFIGURATION_SET,
    secrets: secretsManagerStore(),
    secretPrefix: process.env.PMAIL_SMTP_SECRET_PREFIX ?? 'pmail',
    ...(probeFunction ? { probeSmtp: invokeSmtpProbe(probeFunction) } : {}),
    ...(inboundRegion ? { inboundRegion, resolveMx: dnsMxLookup } : {}),
  },
);
