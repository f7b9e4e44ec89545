import { SQSClient } from '@aws-sdk/client-sqs';
import { sqsForwardBatch } from '../adapters/sqs-queues.ts';
import { loadCloudflareApiToken } from '../env.ts';
import { jsonLogger } from '../log.ts';
import { emfMetrics } from '../metrics.ts';
import { type PullReport, pullAndForward } from './cloudflare-pull.ts';

/**
 * Lambda entry of the Cloudflare pull consumer, run every minute by EventBridge (lib/cloudflare-
 * events.ts): pulls Email Sending events until a batch comes back empty or ~50 s have passed, and
 * forwards them to the delivery-events queue. The token is read from Secrets Manager and never
 * logged; nor are message bodies (they name recipients).
 */
const sqs = new SQSClient({});
const log = jsonLogger({ service: 'cloudflare-pull' });
const metrics = emfMetrics();

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

export async function handler(): Promise<PullReport> {
  return pullAndForward(
    {
      forward: sqsForwardBatch(sqs, required('PMAIL_EVENTS_QUEUE_URL')),
      clock: () => Date.now(),
      log,
      metrics,
    },
    {
      accountId: required('PM_CF_ACCOUNT_ID'),
      queueId: required('PM_CF_EVENTS_QUEUE_ID'),
      apiToken: await loadCloudflareApiToken(),
    },
  );
}
