import { consumeDeliveryEvent } from '../functions/events/consume.ts';
import { startLocalSes } from '../functions/local/local-ses.ts';
import { seedTestTenant } from '../functions/local/seed.ts';
import { getMessage } from '../functions/store/messages.store.ts';
import type { Tally } from './capacity.ts';
import type { BenchStack } from './stack.ts';

/**
 * The capacity run of a send through SES, pmail's default transport, beside the simulator's run in
 * bench/run.ts: a live tenant whose domain sends through SES (aws-ses-v2-local in this process, as
 * `npm start` runs it, through the same SES adapter as the transport Lambda). SES answers with a
 * live message id, which Record writes to the provider index (gsi1) so that SES's events find the
 * message; the simulator's test ids name their message and write no index entry. After each send
 * has settled, the two events SES publishes for a delivered one-recipient send (lib/events.ts
 * subscribes the configuration set to both), Send and then Delivery, are applied in their SNS
 * envelopes through the delivery-events consumer, as its Lambda applies a queue message.
 */
export interface SesRun {
  tallies: Tally[];
  sends: number;
  accepted: number;
  /** The API handler's time per send, ms. */
  handlerMs: number[];
  /** From the 202 until the attempt settled, ms. */
  settleMs: number[];
  /** The consumer's time per send for both events, ms. */
  eventsMs: number[];
  executions: number;
  /** The events the consumer applied (2 per accepted send when all found their message). */
  applied: number;
  /** Final statuses, e.g. `delivered (delivered)`, with their counts. */
  finalStatus: Map<string, number>;
}

type Send = (
  identityId: string,
  key: string,
  body: string,
  apiKey: string,
) => Promise<{ status: number; messageId?: string }>;

const RECIPIENT = 'ann@example.net';
const BODY = JSON.stringify({ to: [RECIPIENT], subject: 'bench', text: 'hello' });

export async function sesCapacityRun(stack: BenchStack, sends: number, send: Send): Promise<SesRun> {
  const { runtime, meter } = stack;
  const db = runtime.deps.db;
  const ses = await startLocalSes(0);
  try {
    stack.setPhase('setup');
    const tenant = await seedTestTenant(runtime.deps, {
      names: ['ses'],
      mode: 'live',
      transport: 'ses',
      ses: { endpoint: ses.url, configuration_set: 'pmail-bench' },
    });
    const identity = tenant.identities[0];
    meter.collect();
    const run: SesRun = {
      tallies: [],
      sends,
      accepted: 0,
      handlerMs: [],
      settleMs: [],
      eventsMs: [],
      executions: 0,
      applied: 0,
      finalStatus: new Map(),
    };
    const executionsBefore = runtime.machine.started.length;
    const ids: string[] = [];
    for (let i = 0; i < sends; i++) {
      stack.setPhase('submit');
      const t0 = performance.now();
      const answer = await send(identity.id, `bench-ses-${i}`, BODY, tenant.apiKey);
      const t1 = performance.now();
      stack.setPhase('idle');
      await runtime.settle();
      run.handlerMs.push(t1 - t0);
      run.settleMs.push(performance.now() - t1);
      if (answer.status !== 202 || !answer.messageId) continue;
      run.accepted++;
      ids.push(answer.messageId);
      stack.setPhase('verify');
      const providerId = (await getMessage(db, identity.id, answer.messageId, true))?.provider_message_id;
      if (!providerId) continue;
      const t2 = performance.now();
      for (const type of ['Send', 'Delivery'] as const) {
        stack.setPhase(type === 'Send' ? 'Send event' : 'Delivery event');
        const body = sesEvent(type, providerId, identity.address, `bench-${type}-${i}`);
        if ((await consumeDeliveryEvent(runtime.deps, body)) === 'applied') run.applied++;
      }
      run.eventsMs.push(performance.now() - t2);
      stack.setPhase('idle');
    }
    run.executions = (runtime.machine.started.length - executionsBefore) / sends;
    run.tallies = meter.collect();
    stack.setPhase('verify');
    for (const id of ids) {
      const m = await getMessage(db, identity.id, id, true);
      const s = `${m?.status ?? 'missing'} (${m?.deliveries?.map((d) => d.status).join(',') ?? ''})`;
      run.finalStatus.set(s, (run.finalStatus.get(s) ?? 0) + 1);
    }
    meter.collect();
    return run;
  } finally {
    await ses.stop();
  }
}

/**
 * An SES event publishing record in its SNS envelope, as the delivery-events queue receives it: the
 * Send event carries the Message-ID SES gave the message (it replaces the one pmail composed), the
 * Delivery event the recipient's accepting answer.
 */
function sesEvent(
  type: 'Send' | 'Delivery',
  providerId: string,
  from: string,
  notificationId: string,
): string {
  const now = new Date().toISOString();
  const record = {
    eventType: type,
    mail: {
      timestamp: now,
      source: from,
      messageId: providerId,
      destination: [RECIPIENT],
      commonHeaders: { from: [from], to: [RECIPIENT], messageId: `<${providerId}@email.amazonses.com>` },
    },
    ...(type === 'Send'
      ? { send: {} }
      : {
          delivery: {
            timestamp: now,
            recipients: [RECIPIENT],
            smtpResponse: '250 2.0.0 OK',
            processingTimeMillis: 500,
            reportingMTA: 'a1-2.smtp-out.amazonses.com',
          },
        }),
  };
  return JSON.stringify({ Type: 'Notification', MessageId: notificationId, Message: JSON.stringify(record) });
}
