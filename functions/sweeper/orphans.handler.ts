import { required } from '../env.ts';
import { jsonLogger } from '../log.ts';
import { s3Blobs } from '../store/blobs.ts';
import { createDb } from '../store/dynamodb.ts';
import { sweepOrphans } from './orphans.ts';

/**
 * The daily orphan pass (lib/orphans.ts: an EventBridge rule; functions/sweeper/orphans.ts). It
 * reads the table and lists and deletes blobs; no keys, no machines, no queues.
 */
const deps = {
  db: createDb({ table: required('PMAIL_TABLE') }),
  blobs: s3Blobs(required),
  clock: () => Date.now(),
  log: jsonLogger({ service: 'orphans' }),
};

export const handler = async () => sweepOrphans(deps);
