import type { DeliveryEvent } from '../core/deliveries.ts';
import { isSimulatorAddress, simulate } from '../core/simulator.ts';
import type { TransportResult } from '../core/transport-result.ts';
import type { EventSink } from '../events/event-sink.ts';
import { deliverLocally, type LoopbackPorts, testProviderMessageId } from './loopback.transport.ts';
import type { Transport, TransportRequest } from './transport.ts';

export interface SimulatorPorts extends LoopbackPorts {
  /** The delivery-events queue: the simulator publishes its scripted events there, as a provider would. */
  events: EventSink;
  clock: () => number;
  /** Delay before an event reaches the queue (about a second, as a provider's event would; default 1). */
  eventDelaySeconds: number;
}

/**
 * The simulator (test tenants): the local part of a `@simulator.invalid` recipient
 * picks a script (deliver, bounce, refuse with RateLimit, time out …). Its events are published after
 * the call, independently of what pmail records. The message's other recipients go to loopback in
 * the same call (one provider id `test-{ulid}` for all of them), so the provider is `simulator`.
 */
export function simulatorTransport(ports: SimulatorPorts): Transport {
  return {
    provider: 'simulator',
    async send(req: TransportRequest): Promise<TransportResult> {
      const addresses = req.recipients.map((r) => r.address);
      const simulated = addresses.filter(isSimulatorAddress);
      const providerMessageId = testProviderMessageId(req.message_id);
      const outcome = simulate(simulated, providerMessageId, req.attempt);
      if (outcome.result.type !== 'accepted') return outcome.result;
      const now = ports.clock();
      const events: DeliveryEvent[] = outcome.events.map((e) => ({
        source: 'simulator',
        event_id: `sim:${req.message_id}:${e.recipient.toLowerCase()}:${e.n}`,
        provider_message_id: providerMessageId,
        sender: req.from,
        recipient: e.recipient,
        subject: req.subject,
        kind: e.kind,
        bounce_type: e.bounce_type,
        smtp_code: e.smtp_code,
        enhanced_code: e.enhanced_code,
        smtp_response: e.smtp_response,
        occurred_at: now,
      }));
      const local = await deliverLocally(
        ports,
        addresses.filter((a) => !isSimulatorAddress(a)),
      );
      if (events.length > 0) await ports.events.publish(events, ports.eventDelaySeconds);
      return {
        type: 'accepted',
        provider: 'simulator',
        provider_message_id: providerMessageId,
        refused: local.refused,
        deferred: [],
        loopback: local.loopback,
      };
    },
  };
}
