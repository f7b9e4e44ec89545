import { readFileSync } from 'node:fs';
import { DescribeStateMachineCommand, SFNClient } from '@aws-sdk/client-sfn';
import { loadLambdaDeps } from '../env.ts';
import type { ApiEvent, ApiResult } from './http.ts';
import { metaApi } from './meta.api.ts';

/**
 * Lambda entry of the `meta` route group (functions/api/routes.ts). lib/api.ts places the contract
 * (openapi.yaml as JSON) beside the bundle and sets PMAIL_VERSION.
 */

const sfn = new SFNClient({});
const arns = [process.env.PMAIL_SEND_ATTEMPT_ARN, process.env.PMAIL_SEND_ARN].filter((a): a is string => !!a);

export const handler: (event: ApiEvent) => Promise<ApiResult> = metaApi(
  await loadLambdaDeps('api-meta', {}),
  {
    version: process.env.PMAIL_VERSION ?? 'unknown',
    openapi: async () => readFileSync(new URL('./openapi.json', import.meta.url), 'utf8'),
    stateMachines: async () => {
      if (arns.length === 0) return 'not_configured';
      // https://docs.aws.amazon.com/step-functions/latest/apireference/API_DescribeStateMachine.html
      const out = await Promise.all(
        arns.map((arn) => sfn.send(new DescribeStateMachineCommand({ stateMachineArn: arn }))),
      );
      return out.every((m) => m.status === 'ACTIVE') ? 'ok' : 'unreachable';
    },
  },
);
