import { loadTransportDeps } from '../env.ts';
import { s3Blobs } from '../store/blobs.ts';
import { sesClients, sesTransport } from '../transports/ses.transport.ts';
import { transportTask } from '../transports/tasks.ts';
import { transportAttemptTask } from './task-entry.ts';

/**
 * Lambda entry of the SES transport task. Its role may read the message and its stored copy, write
 * the claim with its sending mark and call ses:SendEmail — nothing else (lib/pmail-stack.ts).
 */
const deps = loadTransportDeps('transport-ses', { blobs: s3Blobs });

export const handler = transportAttemptTask(
  sesTransport({
    client: sesClients({ region: process.env.AWS_REGION }),
    defaultConfigurationSet: process.env.PMAIL_SES_CONFIGURATION_SET,
    log: deps.log,
  }),
  transportTask('ses'),
)(deps);
