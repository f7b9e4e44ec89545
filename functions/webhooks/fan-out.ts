import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { wantsEvent } from '../core/webhooks.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import { TEST_EVENT_TYPE } from '../store/webhook-deliveries.store.ts';
import { listWebhooks, type StoredWebhook } from '../store/webhooks.store.ts';
import type { WebhookQueue } from './webhook-queue.ts';

/** What the fan-out needs of an outbox event: whose it is, its id and its type. */
export interface OutboxRef {
  tenant_id: string;
  id: string;
  type: string;
}

/**
 * The outbox event a stream record carries, when it is the insert of one (`type = "event"`,
 * functions/store/events.store.ts). In AWS the event source mapping's filter already keeps only
 * these; the check here makes the local poller and any unfiltered source behave the same. Read
 * from the keys and `event.type` only, so no other attribute of the image can make it fail.
 */
export function outboxInsert(record: DynamoDBRecord): OutboxRef | undefined {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || image?.type?.S !== 'event') return undefined;
  const pk = image.pk?.S ?? '';
  const sk = image.sk?.S ?? '';
  const type = image.event?.M?.type?.S;
  if (!pk.startsWith('T#') || !sk.startsWith('E#') || !type) return undefined;
  return { tenant_id: pk.slice(2), id: sk.slice(2), type };
}

/**
 * The test event a stream record carries, when it is the insert of one (`type = "webhook_test"`,
 * functions/store/webhook-deliveries.store.ts): meant for the one endpoint it names.
 */
export function testInsert(record: DynamoDBRecord): (OutboxRef & { webhook_id: string }) | undefined {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || image?.type?.S !== TEST_EVENT_TYPE) return undefined;
  const pk = image.pk?.S ?? '';
  const sk = image.sk?.S ?? '';
  const webhookId = image.webhook_id?.S;
  if (!pk.startsWith('T#') || !sk.startsWith('WT#') || !webhookId) return undefined;
  return { tenant_id: pk.slice(2), id: sk.slice(3), type: 'webhook.test', webhook_id: webhookId };
}

/** The stream filter of the fan-out's event source mapping (lib/webhooks.ts), as data. */
export const OUTBOX_INSERT_FILTER = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { type: { S: ['event', TEST_EVENT_TYPE] } } },
};

/**
 * From the outbox to deliveries: one job per (active endpoint that wants the type, event). Records
 * are taken in order and the batch stops at the first failure, reported by sequence number, so the
 * stream retries from there (at least once: a retried record may queue a job twice, and receivers
 * deduplicate on `webhook-id`).
 */
export async function fanOut(
  deps: Pick<Deps, 'db' | 'log' | 'metrics'>,
  queue: WebhookQueue,
  records: DynamoDBRecord[],
): Promise<DynamoDBBatchResponse> {
  const endpoints = new Map<string, StoredWebhook[]>();
  for (const record of records) {
    try {
      const test = testInsert(record);
      if (test) {
        const job = { tenant_id: test.tenant_id, webhook_id: test.webhook_id, event_id: test.id, attempt: 1 };
        await queue.send([{ job: { ...job, test: true }, delaySeconds: 0 }]);
        continue;
      }
      const event = outboxInsert(record);
      if (!event) {
        // Not an outbox insert (or not one this code can read): nothing to deliver, never a retry.
        if (record.eventName === 'INSERT' && record.dynamodb?.NewImage?.type?.S === 'event') {
          deps.metrics.add('webhook_fanout_skipped');
          deps.log.warn('outbox record unreadable, skipped');
        }
        continue;
      }
      let list = endpoints.get(event.tenant_id);
      if (!list) {
        list = await listWebhooks(deps.db, event.tenant_id);
        endpoints.set(event.tenant_id, list);
      }
      const targets = list.filter((w) => wantsEvent(w, event.type));
      if (targets.length === 0) continue;
      await queue.send(
        targets.map((w) => ({
          job: { tenant_id: event.tenant_id, webhook_id: w.id, event_id: event.id, attempt: 1 },
          delaySeconds: 0,
        })),
      );
    } catch (err) {
      deps.log.error('webhook fan-out failed', errorFields(err));
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
    }
  }
  return { batchItemFailures: [] };
}
