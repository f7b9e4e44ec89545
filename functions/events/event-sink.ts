import type { DeliveryEvent } from '../core/deliveries.ts';

/**
 * Where provider events go: the delivery-events queue (SQS in AWS, an in-process queue locally).
 * The test transports publish their scripted events here, as a real provider would. The SQS
 * adapter is functions/adapters/sqs-queues.ts.
 */
export interface EventSink {
  publish(events: DeliveryEvent[], delaySeconds: number): Promise<void>;
}
