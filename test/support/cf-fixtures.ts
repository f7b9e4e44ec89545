/**
 * Cloudflare Email Sending event-subscription messages built field for field on the examples of
 * the Email Service "Event subscriptions" page (developers.cloudflare.com/email-service/platform/
 * event-subscriptions/, read 2026-12-02): the same envelope, source, payload and metadata, with the
 * event id, message id, addresses, subject and time of the test put in (RFC 2606 names).
 */
export interface CfFacts {
  eventId: string;
  messageId: string;
  sender: string;
  recipient: string;
  subject?: string;
  at: number;
}

export type CfKind = 'delivered' | 'deferred' | 'bounced' | 'failed' | 'rejected' | 'complained';

const iso = (ms: number) => new Date(ms).toISOString();

/** The `payload` fields beyond the common ones, as each documented example has them. */
const DETAILS: Record<CfKind, { terminal: boolean } & Record<string, unknown>> = {
  delivered: {
    terminal: true,
    delivery: {
      status: 'delivered',
      provider: 'gmail',
      deliveryTimeMs: 1234,
      smtpStatusCode: '250',
      smtpEnhancedStatusCode: '2.0.0',
      smtpResponse: '250 2.0.0 OK 1714820445 a1b2c3 - gsmtp',
    },
  },
  deferred: {
    terminal: false,
    delivery: {
      status: 'deferred',
      provider: 'external_smtp',
      deliveryTimeMs: 2143,
      smtpStatusCode: '451',
      smtpEnhancedStatusCode: '4.2.0',
      smtpResponse: '451 4.2.0 Temporary mailbox error',
    },
    bounce: {
      type: 'soft',
      classification: 'temporary_failure',
      reason: '451 4.2.0 Temporary mailbox error',
    },
  },
  bounced: {
    terminal: true,
    delivery: {
      status: 'bounced',
      provider: 'external_smtp',
      deliveryTimeMs: 2143,
      smtpStatusCode: '550',
      smtpEnhancedStatusCode: '5.1.1',
      smtpResponse: '550 5.1.1 User unknown',
    },
    bounce: { type: 'hard', classification: 'permanent_failure', reason: '550 5.1.1 User unknown' },
  },
  failed: { terminal: true, delivery: { status: 'failed' }, failure: { reason: 'delivery_failed' } },
  rejected: {
    terminal: true,
    delivery: { status: 'rejected' },
    rejection: { reason: 'suppressed', party: 'recipient', detail: 'Recipient is suppressed' },
  },
  complained: { terminal: true, delivery: { status: 'complained' }, complaint: { type: 'abuse' } },
};

/** One event as the subscription publishes it; the complaint example carries no subject. */
export function cfEvent(kind: CfKind, f: CfFacts, overrides: Record<string, unknown> = {}) {
  const domain = f.sender.split('@')[1];
  return {
    type: `cf.email.sending.message.${kind}`,
    source: { type: 'email.sending', zoneId: '023e105f4ecef8ad9ca31a8372d0c353', domain },
    payload: {
      eventId: f.eventId,
      messageId: f.messageId,
      sender: f.sender,
      recipient: f.recipient,
      ...(kind !== 'complained' && f.subject !== undefined ? { subject: f.subject } : {}),
      ...DETAILS[kind],
      ...overrides,
    },
    metadata: {
      accountId: 'f9f79265f388666de8122cfb508d7776',
      eventSubscriptionId: '1830c4bb612e43c3af7f4cada31fbf3f',
      eventSchemaVersion: 1,
      eventTimestamp: iso(f.at),
    },
  };
}
