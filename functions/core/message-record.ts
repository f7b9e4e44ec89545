import type { Operation } from './compose.ts';
import { derivedEventId } from './delivery-outbox.ts';
import { executionName } from './dispatch.ts';
import { bornStatus } from './enqueue.ts';
import { aboutMessage } from './event-access.ts';
import { consentKindOf } from './job-kind.ts';
import type { Mailbox, MessageRecord } from './model.ts';
import type { Recipient } from './recipients.ts';
import type { SendCommand } from './send-command.ts';
import type { FilterDecision } from './suppressions.ts';

/** What a composed send's message record is built from (send/prepare.ts `Prepared` is one). */
export interface ComposedSend {
  messageId: string;
  threadId: string;
  /** A reply, reply-all, forward or a send with thread_id: takes the thread lock. */
  threaded: boolean;
  recipients: Recipient[];
  decisions: (FilterDecision & { address: string })[];
  from: Mailbox;
  replyTo?: Mailbox;
  subject: string;
  hop: number;
  compose: { rfcMessageId: string; now: number };
  inReplyTo?: string;
  references?: string[];
  mime: { length: number };
  /** Held `undispatched` (no transport configured, `unconfigured_transport: "hold"`). */
  undispatched?: boolean;
}

export interface MessageRecordInput {
  tenantId: string;
  identityId: string;
  operation: Operation;
  body: SendCommand;
  send: ComposedSend;
  /** Which request of the Idempotency-Key this is (0: the one that minted the id). */
  attempt: number;
  /** The MIME object this request writes (store/blobs.ts `outboundKey`). */
  rawKey: string;
  now: number;
  /** The local day the send was counted on (absent: counted on none). */
  quotaDay?: string;
  /** Waiting for a person's approval. */
  pending: boolean;
}

/** The message record of an accepted send, as the commit point writes it. */
export function messageRecord(r: MessageRecordInput): MessageRecord {
  const { send: p, body, now } = r;
  // Born suppressed, pending approval, undispatched or queued (core/enqueue.ts).
  const status = bornStatus(p.decisions, p.undispatched === true, r.pending);
  const byField = (f: 'to' | 'cc' | 'bcc') =>
    p.recipients
      .filter((x) => x.field === f)
      .map(({ address, name }) => (name ? { address, name } : { address }));
  return {
    id: p.messageId,
    tenant_id: r.tenantId,
    identity_id: r.identityId,
    thread_id: p.threadId,
    direction: 'outbound',
    status,
    operation: r.operation,
    from: p.from,
    to: byField('to'),
    cc: byField('cc'),
    bcc: byField('bcc'),
    reply_to: p.replyTo ? [p.replyTo] : [],
    subject: p.subject,
    kind: body.kind,
    consent_kind: consentKindOf(body),
    labels: body.labels ?? [],
    metadata: body.metadata,
    flags: [],
    rfc_message_id: p.compose.rfcMessageId,
    in_reply_to: p.inReplyTo,
    references: p.references,
    hop: p.hop,
    holds_lock: p.threaded && status === 'queued' ? true : undefined,
    raw_key: r.rawKey,
    ...(r.attempt > 0 ? { raw_n: r.attempt } : {}),
    raw_size: p.mime.length,
    // The Date header's instant: the stored copy and the record agree to the millisecond.
    created_at: p.compose.now,
    updated_at: now,
    version: 1,
    deliveries: deliveriesOf(p, now),
    ...(body.send_at ? { send_at: Date.parse(body.send_at) } : {}),
    ...(body.unless_reply ? { unless_reply: true } : {}),
    ...(r.quotaDay ? { quota_day: r.quotaDay } : {}),
    // A send by template: the template, its version and the variables (functions/send/template.ts).
    ...templateFields(body),
    ...(status === 'queued' ? { dispatch: dispatchOf(p.messageId, body.send_at, now) } : {}),
  };
}

/** Each recipient's delivery as the send is born: queued, or suppressed with its reason. */
function deliveriesOf(p: ComposedSend, now: number): NonNullable<MessageRecord['deliveries']> {
  return p.recipients.map((r, i) => {
    const d = p.decisions[i];
    const typed = r.typed ? { typed_address: r.typed } : {};
    return d.status === 'queued'
      ? { address: r.address, ...typed, field: r.field, status: 'queued' as const, updated_at: now }
      : {
          address: r.address,
          ...typed,
          field: r.field,
          status: 'suppressed' as const,
          smtp_response: d.smtp_response,
          updated_at: now,
        };
  });
}

/**
 * The execution coming for a queued message, named in the write that queues it; a scheduled send
 * waits in the Standard machine, dispatched for its send_at.
 */
function dispatchOf(messageId: string, sendAt: string | undefined, now: number): MessageRecord['dispatch'] {
  return sendAt
    ? { execution: executionName(messageId, 1, 'send'), at: Date.parse(sendAt), n: 1 }
    : { execution: executionName(messageId, 1), at: now, n: 1 };
}

/**
 * What a message stores of its template: name, version, category and the variables (its consent
 * kind is written through core/job-kind.ts › consentKindOf, as for every send).
 */
export function templateFields(body: SendCommand): Pick<MessageRecord, 'template' | 'template_variables'> {
  if (!body.rendered_template) return {};
  return { template: body.rendered_template, template_variables: body.variables ?? {} };
}

/** A fully suppressed send's `message.suppressed`, with an id derived from the message. */
export function suppressedEvent(m: MessageRecord) {
  return {
    id: derivedEventId(m.created_at, `${m.id}|message.suppressed`, 0),
    type: 'message.suppressed',
    tenant_id: m.tenant_id,
    created_at: m.created_at,
    data: {
      ...aboutMessage(m),
      recipients: (m.deliveries ?? []).map((d) => ({ address: d.address, reason: d.smtp_response })),
    },
  };
}

/** A send waiting for a person's approval: `message.pending_approval`, its id derived from the message. */
export function pendingApprovalEvent(m: MessageRecord) {
  return {
    id: derivedEventId(m.created_at, `${m.id}|message.pending_approval`, 0),
    type: 'message.pending_approval',
    tenant_id: m.tenant_id,
    created_at: m.created_at,
    data: { ...aboutMessage(m), recipients: (m.deliveries ?? []).length },
  };
}
