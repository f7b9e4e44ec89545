import middy from '@middy/core';
import { sesIdentities } from '../domains/ses-identities.ts';
import { loadLambdaDeps } from '../env.ts';
import { domainsApi } from './domains.api.ts';
import type { ApiEvent, ApiResult } from './http.ts';

/** Lambda entry of the `domains` route group (functions/api/routes.ts). */
export const handler = middy<ApiEvent, ApiResult>().handler(
  domainsApi(await loadLambdaDeps('api-domains'), {
    identities: sesIdentities({ region: process.env.AWS_REGION ?? 'us-east-1' }),
    configurationSet: process.env.PMAIL_SES_CONFIGURATION_SET,
  }),
);
