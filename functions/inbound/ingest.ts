import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ulidTime } from '../core/delivery-outbox.ts';
import { derivedUlid } from '../core/ids.ts';
import {
  dedupeKey,
  type InboundVerdicts,
  normaliseRecipient,
  type RoutedRecipient,
  replyCandidates,
  snippetOf,
  threadDecision,
  verifiedThreadToken,
} from '../core/inbound.ts';
import { bodyOf } from '../core/message-body.ts';
import type { AddressRecord } from '../core/model.ts';
import { authFromSes, senderAuthOf } from '../core/trust.ts';
import type { BaseDeps, Deps } from '../deps.ts';
import type { QueueConsumer } from '../local/queue.ts';
import { errorFields } from '../log.ts';
import { indexMessage } from '../search/index-message.ts';
import { inboundKey } from '../store/blobs.ts';
import { getAddress } from '../store/directory.store.ts';
import { noteDropped } from '../store/hold.store.ts';
import { findOutboundByRfcId, storedMessageId, storeInbound, threadExists } from '../store/inbound.store.ts';
import { getMessage } from '../store/messages.store.ts';
import { tableSearchIndex } from '../store/search.store.ts';
import { routeDsn } from './dsn.ts';
import {
  type IngestOptions,
  inboundMessage,
  type Placement,
  type RecipientCopy,
  receivedEvent,
} from './inbound-record.ts';
import { type EarlierCopy, earlierCopy, recordAsDuplicate } from './message-id.ts';
import type { SesReceivedNotification } from './notification.ts';
import { type ParsedInbound, parseInbound } from './parse.ts';
import { screen } from './screen.ts';

export type { IngestOptions } from './inbound-record.ts';

/** The ports of the ingest: the raw message's blobs, and the events queue routed DSNs publish on. */
export type IngestDeps = BaseDeps & Pick<Deps, 'blobs' | 'events'>;

/** What one notification's ingest did, recipient by recipient. */
export interface IngestReport {
  /** The stored inbound messages' ids (a repeat of an earlier ingest lists none). */
  stored: string[];
  /** Recipients whose message was stored already (a redelivery, a client's retry of the same bytes). */
  duplicates: number;
  /** Envelope recipients that are no identity's address: counted and dropped. */
  unknown_recipients: number;
  /** Recipients for whom the message was a DSN proven to answer their own outbound mail, routed as delivery events. */
  dsn_routed: number;
  /** Recipients for whom the message would have been held past their held caps: not stored. */
  held_dropped: number;
}

/**
 * Ingest one received message (docs/guides/receiving.md): read the raw message the receipt stored,
 * route each envelope recipient to the identity whose address it is, parse once under the caps,
 * hand a DSN to DSN routing, thread, and store one message per recipient, once. Throws when the
 * raw message cannot be read or a write fails: the queue brings the notification back, and the
 * dedupe key makes the repeat store nothing twice.
 */
export async function ingestNotification(
  deps: IngestDeps,
  n: SesReceivedNotification,
  opts: IngestOptions = {},
): Promise<IngestReport> {
  const report: IngestReport = {
    stored: [],
    duplicates: 0,
    unknown_recipients: 0,
    dsn_routed: 0,
    held_dropped: 0,
  };
  const receivedAt = Date.parse(n.receipt.timestamp || n.mail.timestamp) || deps.clock();
  const routes: { rcpt: string; routed: RoutedRecipient; address: AddressRecord }[] = [];
  const seen = new Set<string>();
  for (const rcpt of n.receipt.recipients) {
    const routed = normaliseRecipient(rcpt);
    const address = routed ? await getAddress(deps.db, routed.address) : undefined;
    if (!routed || !address || address.status === 'retired') {
      report.unknown_recipients++;
      deps.metrics.add('inbound_unknown_recipients');
      continue;
    }
    // The same recipient twice in one envelope (with and without a +detail) is one mailbox.
    if (seen.has(routed.address)) continue;
    seen.add(routed.address);
    routes.push({ rcpt, routed, address });
  }
  if (routes.length === 0) return report;

  const raw = await deps.blobs.get(n.receipt.action.objectKey);
  if (!raw) throw new Error(`the received message ${n.mail.messageId} is not in the blob store`);
  const verdicts = verdictsOf(n);
  const parsed = await parseInbound(raw.body, { quarantined: verdicts.virus === 'FAIL' });
  // The local MX's own verdicts, else SES's: SES puts its Authentication-Results on top, so the
  // first one is SES's (core/trust.ts › sesDkimPasses).
  const authResults =
    n.receipt.authentication ??
    authFromSes(verdicts, parsed.from?.address, parsed.headerMap.get('authentication-results'));
  const auth = senderAuthOf(authResults);

  for (const route of routes) {
    const copy = { n, raw: raw.body, parsed, verdicts, auth, authResults, receivedAt, ...route, opts };
    const outcome = await ingestOne(deps, copy);
    if (outcome.type === 'stored') report.stored.push(outcome.id);
    else if (outcome.type === 'duplicate') report.duplicates++;
    else if (outcome.type === 'dropped') report.held_dropped++;
    else report.dsn_routed++;
  }
  return report;
}

type Outcome =
  | { type: 'stored'; id: string }
  | { type: 'duplicate' }
  | { type: 'dsn_routed' }
  | { type: 'dropped' };

/** How often a copy that met another copy of its message at the store is decided again. */
const MAX_DECISIONS = 3;

/**
 * One recipient's copy, phase by phase: a DSN proven to answer its own outbound mail is routed as
 * delivery events (functions/inbound/dsn.ts); a duplicate by Message-ID of an earlier message is
 * recorded (functions/inbound/message-id.ts); otherwise the copy is placed (id, thread), its raw bytes copied, its record built
 * (functions/inbound/inbound-record.ts) and stored once. A copy whose store met another copy of its
 * message (its marker written meanwhile, or the two transactions at once) is decided again, under
 * the same id; after MAX_DECISIONS the error goes up and the queue brings the copy back.
 */
async function ingestOne(deps: IngestDeps, args: RecipientCopy): Promise<Outcome> {
  const dsn = args.parsed.isDsn ? await routeOwnDsn(deps, args) : undefined;
  if (dsn === 'routed') return { type: 'dsn_routed' };
  const dsnUnmatched = dsn === 'kept';
  const key = dedupeKey(args.raw, args.routed.address);
  let placed: Placement | undefined;
  for (let decision = 1; decision <= MAX_DECISIONS; decision++) {
    const earlier = await earlierCopy(deps, args);
    if (earlier?.type === 'duplicate') {
      if (placed) await dropRawCopy(deps, args, placed);
      // A repeat of a copy that stored its message (its Message-ID's marker names it) repairs its document.
      if ((await recordAsDuplicate(deps, args, key, earlier.marker)) === 'repeat')
        await indexEarlier(deps, args.address.identity_id, key);
      return { type: 'duplicate' };
    }
    // Screened once, before its first placement: the stranger rate counts a copy once.
    args.screened ??= await screen(deps, args);
    if (!placed) {
      placed = await place(deps, args, key, earlier);
      await copyRaw(deps, args, placed);
    } else if (earlier) placed = joining(placed, earlier);
    const stored = await storeCopy(deps, args, placed, { dsnUnmatched, first: !earlier });
    if (stored.type !== 'raced') return stored;
  }
  throw new Error('the copy met another copy of its message at every store: the queue brings it back');
}

/** A DSN routed to the identity's own outbound mail (`routed`), or one that matched none of it. */
async function routeOwnDsn(deps: IngestDeps, args: RecipientCopy) {
  return routeDsn(deps, {
    identityId: args.address.identity_id,
    tenantId: args.address.tenant_id,
    parsed: args.parsed.mail,
    receivedAt: args.receivedAt,
    envelopeFrom: args.n.mail.source,
    detail: args.routed.detail,
  });
}

type PossibleDuplicate = Extract<EarlierCopy, { type: 'possible_duplicate' }>;

/** A possible duplicate goes into the earlier message's thread. */
function joining(placement: Omit<Placement, 'threadId' | 'by'>, earlier: PossibleDuplicate): Placement {
  return {
    ...placement,
    threadId: earlier.marker.thread_id,
    by: 'duplicate',
    possibleDuplicate: { of: earlier.marker.message_id, reason: earlier.reason },
  };
}

/**
 * The copy's id and thread. The id takes its time from the placement, not the receipt (a loopback
 * copy is received when its message was composed, a redelivered notification minutes late), so the
 * newest-first list shows it where it arrived. Readers that follow the mailbox read in commit order
 * whatever the id (docs/design/ordering.md): the number is taken at the store, after the raw copy.
 * A possible duplicate joins the earlier message's thread.
 */
async function place(
  deps: IngestDeps,
  args: RecipientCopy,
  key: string,
  earlier: PossibleDuplicate | undefined,
): Promise<Placement> {
  const { parsed, routed, address } = args;
  const ulid = derivedUlid(ulidTime(deps.clock()), key);
  const id = `msg_${ulid}`;
  const rawKey = inboundKey(address.tenant_id, address.identity_id, id);
  if (earlier) return joining({ key, ulid, id, rawKey }, earlier);
  const { threadId, by } = threadDecision({
    tokenThread: await tokenThread(deps, address.identity_id, routed.detail),
    repliedThread: await repliedThread(deps, address.identity_id, parsed),
    messageUlid: ulid,
  });
  return { key, ulid, id, threadId, by, rawKey };
}

/**
 * The copy the message's raw route serves (and a forward re-reads): this recipient's own object.
 * A quarantined message gets none: its original stays where the receipt stored it.
 */
async function copyRaw(deps: IngestDeps, args: RecipientCopy, placement: Placement): Promise<void> {
  if (args.parsed.parse === 'quarantined') return;
  await deps.blobs.put(placement.rawKey, args.raw, {
    tenant: args.address.tenant_id,
    identity: args.address.identity_id,
    message: placement.id,
    received: args.n.mail.messageId,
  });
}

/**
 * Store the record with its `message.received` event, once (with the Message-ID's marker when it is
 * the `first` message with it); a repeat drops the raw copy it made.
 */
async function storeCopy(
  deps: IngestDeps,
  args: RecipientCopy,
  placement: Placement,
  at: { dsnUnmatched: boolean; first: boolean },
): Promise<Outcome | { type: 'raced' }> {
  const { parsed, address } = args;
  const now = deps.clock();
  const message = inboundMessage(args, placement, { dsnUnmatched: at.dsnUnmatched, now });
  const { id, identity_id: identityId, thread_id: threadId, flags } = message;
  const stored = await storeInbound(deps.db, {
    message,
    dedupeKey: placement.key,
    event: receivedEvent(message, now),
    // Quarantined and spam mail makes nobody a known sender, nor does held mail until it is
    // released; only authenticated mail counts for it.
    ...(flags.includes('quarantined') || flags.includes('spam') || !parsed.from || message.held
      ? {}
      : { countSender: parsed.from.address, senderAuthenticated: args.auth === 'authenticated' }),
    ...(at.first && parsed.rfcMessageId
      ? {
          firstWithMessageId: {
            rfcMessageId: parsed.rfcMessageId,
            from: message.inbound!.canonical.from,
            auth: args.auth,
          },
        }
      : {}),
    routedTo: address.address,
    snippet: snippetOf(parsed.extractedText || parsed.text),
    now,
  });
  if (stored === 'raced') return { type: 'raced' };
  if (stored === 'repeat') {
    await indexEarlier(deps, identityId, placement.key);
    await dropRawCopy(deps, args, placement);
    deps.metrics.add('inbound_duplicates');
    return { type: 'duplicate' };
  }
  if (stored === 'over_cap') return overHeldCaps(deps, args, placement);
  await indexMessage(tableSearchIndex(deps.db), message, bodyOf(message));
  deps.metrics.add('inbound_stored', { parse: parsed.parse });
  if (message.held) deps.metrics.add('inbound_held', { reason: message.held.reason });
  deps.log.info('inbound message stored', {
    message_id: id,
    identity_id: identityId,
    thread_id: threadId,
    threaded_by: placement.by,
  });
  return { type: 'stored', id };
}

/**
 * The search document of the message a repeat found stored (functions/search/index-message.ts):
 * written again, so an ingest that stored its message and died before its document is repaired by
 * the queue's retry. A failure goes up: the queue brings the copy back.
 */
async function indexEarlier(deps: IngestDeps, identityId: string, dedupeKey: string): Promise<void> {
  const id = await storedMessageId(deps.db, identityId, dedupeKey);
  const m = id ? await getMessage(deps.db, identityId, id, true) : undefined;
  if (m) await indexMessage(tableSearchIndex(deps.db), m, bodyOf(m));
}

/**
 * A copy that would be held past the identity's held caps (core/hold.ts › HELD_CAPS): not stored,
 * its raw copy dropped (the receipt's object stays), counted on the identity's `dropped`.
 */
async function overHeldCaps(deps: IngestDeps, args: RecipientCopy, placement: Placement): Promise<Outcome> {
  await dropRawCopy(deps, args, placement);
  await noteDropped(deps.db, args.address.identity_id).catch((e) =>
    deps.log.error('held drop count failed', { identity_id: args.address.identity_id, ...errorFields(e) }),
  );
  deps.metrics.add('inbound_held_dropped');
  deps.log.warn('held mail past the caps, not stored', { identity_id: args.address.identity_id });
  return { type: 'dropped' };
}

/**
 * The raw copy written under this call's id belongs to no message (a repeat, or a duplicate by
 * Message-ID), unless a concurrent repeat of the same millisecond took the same id and stored it.
 */
async function dropRawCopy(deps: IngestDeps, args: RecipientCopy, placement: Placement): Promise<void> {
  if (args.parsed.parse === 'quarantined') return;
  if (!(await getMessage(deps.db, args.address.identity_id, placement.id, true)))
    await deps.blobs.delete(placement.rawKey);
}

/** The thread a verified token names, if that thread exists for the identity (a stale token names none). */
async function tokenThread(
  deps: IngestDeps,
  identityId: string,
  detail: string | undefined,
): Promise<string | undefined> {
  const threadId = verifiedThreadToken(deps.config.hashKey, identityId, detail);
  if (!threadId) return undefined;
  return (await threadExists(deps.db, identityId, threadId)) ? threadId : undefined;
}

/** The thread of the identity's outbound message that In-Reply-To or References names first. */
async function repliedThread(
  deps: IngestDeps,
  identityId: string,
  parsed: ParsedInbound,
): Promise<string | undefined> {
  for (const rfcId of replyCandidates(parsed.inReplyTo, parsed.references)) {
    const m = await findOutboundByRfcId(deps.db, identityId, rfcId);
    if (m) return m.thread_id;
  }
  return undefined;
}

function verdictsOf(n: SesReceivedNotification): InboundVerdicts {
  const r = n.receipt;
  return {
    ...(r.spfVerdict ? { spf: r.spfVerdict.status } : {}),
    ...(r.dkimVerdict ? { dkim: r.dkimVerdict.status } : {}),
    ...(r.dmarcVerdict ? { dmarc: r.dmarcVerdict.status } : {}),
    ...(r.spamVerdict ? { spam: r.spamVerdict.status } : {}),
    ...(r.virusVerdict ? { virus: r.virusVerdict.status } : {}),
  };
}

/**
 * The ingest queue's consumer (the Lambda's and the local queue's): each record is one
 * notification; a record that fails comes back (SQS's visibility timeout, the dead-letter queue
 * after its receives), the others are acked.
 */
export function ingestConsumer(deps: IngestDeps): QueueConsumer {
  return (event) => ingestBatch(deps, event);
}

export async function ingestBatch(deps: IngestDeps, event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  // One record at a time: each may be a 40 MB message, and the function's memory is sized for one
  // (lib/inbound.ts › INGEST_MEMORY_MB); the parse is CPU-bound, so overlapping gains nothing.
  for (const r of event.Records) {
    try {
      await ingestNotification(deps, parseNotification(r.body));
    } catch (err) {
      deps.log.error('inbound ingest failed', { ...errorFields(err) });
      failures.push({ itemIdentifier: r.messageId });
    }
  }
  return { batchItemFailures: failures };
}

/** The queue body: the notification itself (raw message delivery), or an SNS envelope around it. */
export function parseNotification(body: string): SesReceivedNotification {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  const inner =
    typeof parsed.Message === 'string' && parsed.Type === 'Notification'
      ? JSON.parse(parsed.Message)
      : parsed;
  if (inner?.notificationType !== 'Received' || !inner.mail || !inner.receipt?.action?.objectKey)
    throw new Error('not an SES received notification');
  return inner as SesReceivedNotification;
}
