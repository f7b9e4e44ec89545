import { loadCloudflareApiToken, loadTransportDeps } from '../env.ts';
import { s3Blobs } from '../store/blobs.ts';
import { cloudflareTransport } from '../transports/cloudflare.transport.ts';
import { transportTask } from '../transports/tasks.ts';
import { transportAttemptTask } from './task-entry.ts';

/**
 * Lambda entry of the Cloudflare Email Sending transport task. It alone reads the sending token's
 * secret (PMAIL_CF_API_TOKEN_SECRET_ARN, read by the same loader as the events pull consumer's);
 * the account is PM_CF_ACCOUNT_ID unless the domain names its own.
 */
const deps = loadTransportDeps('transport-cloudflare', { blobs: s3Blobs });

export const handler = transportAttemptTask(
  cloudflareTransport(
    { apiToken: () => loadCloudflareApiToken(), log: deps.log },
    { accountId: process.env.PM_CF_ACCOUNT_ID || undefined },
  ),
  transportTask('cloudflare'),
)(deps);
