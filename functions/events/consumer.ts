import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { BaseDeps } from '../deps.ts';
import { errorFields } from '../log.ts';
import { consumeDeliveryEvent, NOT_FOUND_RETRY_SECONDS } from './consume.ts';

/**
 * One SQS batch: each record consumed on its own; failures are reported per item so the rest are
 * acked. A NotFound (the event overtook the record of its send) comes back after 30 s.
 */
export async function consumeBatch(
  deps: BaseDeps,
  event: SQSEvent,
  setVisibility: (receiptHandle: string, seconds: number) => Promise<void>,
): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  await Promise.all(
    event.Records.map(async (r) => {
      try {
        const outcome = await consumeDeliveryEvent(deps, r.body);
        if (outcome === 'retry') {
          await setVisibility(r.receiptHandle, NOT_FOUND_RETRY_SECONDS).catch(() => undefined);
          failures.push({ itemIdentifier: r.messageId });
        }
      } catch (err) {
        deps.log.error('delivery event failed', { ...errorFields(err) });
        failures.push({ itemIdentifier: r.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}
