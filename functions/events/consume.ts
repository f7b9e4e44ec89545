import { normaliseCf, unwrapCf } from '../core/cf-events.ts';
import {
  type AbuseOutcome,
  applyDeliveryEvent,
  type DeliveryEvent,
  isDeliveryEventKind,
} from '../core/deliveries.ts';
import { deliveryEvents, type PendingEvent, reconciledEvent } from '../core/delivery-outbox.ts';
import { DSN_HOLD_MS, dsnAwaitsRecord } from '../core/dsn.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import { isJournalAddress } from '../core/journal.ts';
import type { AddressRecord, MessageRecord } from '../core/model.ts';
import { adopt, adoptCandidates, reconcilable, reconcile, reconcileCandidates } from '../core/reconcile.ts';
import type { SuppressionReason } from '../core/suppressions.ts';
import type { BaseDeps } from '../deps.ts';
import { addSuppression, recordAbuseOutcome } from '../outcomes/outcomes.ts';
import { getAddress } from '../store/directory.store.ts';
import { eventPutItem } from '../store/events.store.ts';
import {
  findByProviderId,
  getMessage,
  listCfPending,
  listUncertain,
  mayHaveApplied,
  mutateMessage,
  type ProviderIdMatch,
} from '../store/messages.store.ts';
import { applySendEvent, sesFromBody } from './ses.ts';

/**
 * The delivery consumer: NotFound is retried by age, not by attempts. Reconciliation
 * starts at RECONCILE_MIN_AGE_MS (300 s, core/reconcile.ts), so at least the attempt at this age
 * tries it before the event is acked as orphaned.
 */
export const ORPHAN_AGE_MS = 330_000;
export const NOT_FOUND_RETRY_SECONDS = 30;

export type ConsumeOutcome =
  | 'applied'
  | 'reconciled'
  | 'duplicate'
  | 'ignored'
  | 'unroutable'
  | 'ambiguous'
  | 'unknown_type'
  | 'retry'
  | 'orphaned';

export function parseDeliveryEvent(body: string): DeliveryEvent | undefined {
  try {
    const e = JSON.parse(body) as DeliveryEvent;
    if (typeof e.event_id !== 'string' || typeof e.sender !== 'string' || typeof e.recipient !== 'string')
      return undefined;
    if (!isDeliveryEventKind(e.kind) || typeof e.occurred_at !== 'number') return undefined;
    return e;
  } catch {
    return undefined;
  }
}

/**
 * One queue message: a normalised DeliveryEvent (test transports), a Cloudflare Email Sending event
 * (forwarded by the pull consumer), or an SES record, raw or in its SNS envelope, which may name
 * several recipients. A message of several events is retried whole when any of them must be; the
 * others are duplicates on the next round.
 */
export async function consumeDeliveryEvent(deps: BaseDeps, body: string): Promise<ConsumeOutcome> {
  const cf = unwrapCf(body);
  if (cf) {
    const n = normaliseCf(cf);
    if (n.type === 'unknown') return unknownType(deps, n.event_type);
    return consumeOne(deps, n.events[0]);
  }
  const ses = sesFromBody(body);
  if (ses) {
    if (ses.type === 'unknown') return unknownType(deps, ses.event_type);
    if (ses.type === 'send') {
      if (await applySendEvent(deps, ses)) return 'applied';
      return notFound(deps, {
        event_id: `ses-send:${ses.provider_message_id}`,
        provider_message_id: ses.provider_message_id,
        occurred_at: ses.occurred_at,
      });
    }
    const outcomes: ConsumeOutcome[] = [];
    for (const e of ses.events) outcomes.push(await consumeOne(deps, e));
    return outcomes.includes('retry') ? 'retry' : (outcomes[0] ?? 'ignored');
  }
  const event = parseDeliveryEvent(body);
  if (!event) return unknownType(deps, 'unparsed');
  return consumeOne(deps, event);
}

function unknownType(deps: BaseDeps, type: string): ConsumeOutcome {
  deps.metrics.add('delivery_unknown_type');
  deps.log.warn('delivery event of unknown type acked', { type });
  return 'unknown_type';
}

/**
 * The message an event names: a proven report (`dsn`) names it by its signed return path, test ids
 * name it directly, live provider ids go through gsi1.
 */
async function locate(
  deps: BaseDeps,
  address: AddressRecord,
  event: DeliveryEvent,
): Promise<ProviderIdMatch> {
  if (event.source === 'dsn' && event.message_id && event.identity_id) {
    // The sender routes it: a report names a message of the identity it came back to.
    if (event.identity_id !== address.identity_id) return { type: 'none' };
    return { type: 'one', identity_id: event.identity_id, message_id: event.message_id };
  }
  const pid = event.provider_message_id;
  if (!pid) return { type: 'none' };
  if (pid.startsWith('test-'))
    return { type: 'one', identity_id: address.identity_id, message_id: `msg_${pid.slice(5)}` };
  return findByProviderId(deps.db, pid);
}

/** What applying an event came to; `held`: a proven report waits for its recipient's Record. */
type Applying = Applied | 'not_found' | 'not_candidate' | 'held';

type Applied = {
  result: 'applied' | 'duplicate' | 'ignored' | 'reconciled';
  outcome?: AbuseOutcome;
  suppress: boolean;
  message: MessageRecord;
};

/**
 * Applying an event (docs/architecture.md › Events): one conditional write of the message and its
 * outbox events. An owned transition (docs/lost-answers.md): the event's id, kept on its delivery,
 * owns the write.
 * With outbox events the write is a transaction (resent by the table's client with its ClientRequestToken);
 * when its answer is lost anyway (a lone put, or every resend lost) the message is read again: the
 * event's id on the delivery means the write landed, and this call goes on as its applier (the
 * suppression, the abuse outcome), which a redelivery, finding a duplicate, would skip; without it
 * the event is applied again from the message as it is now.
 */
async function applyTo(
  deps: BaseDeps,
  identityId: string,
  messageId: string,
  event: DeliveryEvent,
  opts: { reconcile?: boolean; adopt?: boolean } = {},
): Promise<Applying> {
  let sent: Omit<Applied, 'message'> | undefined;
  try {
    return await applyOnce(deps, identityId, messageId, event, opts, (s) => {
      sent = s;
    });
  } catch (err) {
    if (!sent || !mayHaveApplied(err)) throw err;
    const m = await getMessage(deps.db, identityId, messageId, true);
    if (m && applyDeliveryEvent(m, event, deps.clock()).type === 'duplicate') return { ...sent, message: m };
    return applyOnce(deps, identityId, messageId, event, opts, () => undefined);
  }
}

async function applyOnce(
  deps: BaseDeps,
  identityId: string,
  messageId: string,
  event: DeliveryEvent,
  opts: { reconcile?: boolean; adopt?: boolean },
  /** Told what each write about to be sent applies (the last one is the write whose answer counts). */
  sending: (s: Omit<Applied, 'message'>) => void,
): Promise<Applying> {
  const now = deps.clock();
  let extra: { outcome?: AbuseOutcome; suppress: boolean } = { suppress: false };
  const out = await mutateMessage(deps.db, identityId, messageId, (m) => {
    if (m.direction !== 'outbound') return { result: 'ignored' as const };
    // A proven report may overtake the Record of its provider call: it waits for it.
    if (event.source === 'dsn' && dsnAwaitsRecord(m, event.recipient)) return { result: 'held' as const };
    let base = m;
    if (opts.reconcile) {
      // Re-checked under the version condition: another event may have reconciled it meanwhile.
      if (reconcileCandidates([m], event).length !== 1) return { result: 'not_candidate' as const };
      base = reconcile(m, event);
    }
    if (opts.adopt) {
      // Re-checked under the version condition: an earlier event may have adopted an id meanwhile.
      if (adoptCandidates([m], event).length !== 1) return { result: 'not_candidate' as const };
      base = adopt(m, event);
    }
    const applied = applyDeliveryEvent(base, event, now);
    if (applied.type !== 'applied') {
      extra = { suppress: applied.type === 'duplicate' ? applied.suppress : false };
      return { result: applied.type };
    }
    extra = { outcome: applied.outcome, suppress: applied.suppress };
    const next = applied.message;
    sending({ result: opts.reconcile ? 'reconciled' : 'applied', ...extra });
    const at = deps.clock();
    const leading: PendingEvent[] = opts.reconcile ? [reconciledEvent(next, event, at)] : [];
    const pending = deliveryEvents({
      before: m,
      after: next,
      event,
      suppressed: applied.suppress,
      leading,
      at,
    });
    return {
      next,
      result: opts.reconcile ? ('reconciled' as const) : ('applied' as const),
      alsoWrite: pending.map((p) => {
        // The message's version condition commits this application once: a redelivered provider
        // event is then a Duplicate and writes nothing, so the events need no condition of their own.
        const put = eventPutItem(deps.db, { ...p, tenant_id: m.tenant_id }, at);
        return { ...put, Put: { TableName: put.Put.TableName, Item: put.Put.Item } };
      }),
    };
  });
  if (!out.found) return 'not_found';
  if (out.result === 'not_candidate' || out.result === 'held') return out.result;
  return { result: out.result, ...extra, message: out.message };
}

async function consumeOne(deps: BaseDeps, event: DeliveryEvent): Promise<ConsumeOutcome> {
  // The journal copy is no delivery; ack and ignore.
  if (isJournalAddress(event.recipient, deps.config.platformDomain)) {
    deps.metrics.add('delivery_journal_ignored');
    deps.log.info('journal recipient event ignored', {
      event: hashed(event.event_id),
    });
    return 'ignored';
  }
  // Route by sender with no status filter: retiring and retired addresses still route late events.
  const address = await getAddress(deps.db, event.sender);
  if (!address) {
    deps.metrics.add('delivery_unroutable');
    deps.log.warn('unroutable delivery event', {
      event: hashed(event.event_id),
    });
    return 'unroutable';
  }
  const target = await locate(deps, address, event);
  if (target.type === 'ambiguous') {
    // Two messages hold the provider id: applying to either could be wrong, so neither.
    deps.metrics.add('delivery_ambiguous');
    deps.log.warn('delivery event for a provider id two messages hold: nothing changed', {
      event: hashed(event.event_id),
    });
    return 'ambiguous';
  }
  let applied =
    target.type === 'one' ? await applyTo(deps, target.identity_id, target.message_id, event) : 'not_found';
  // Reconcile only an id no message holds, and only once the send that owns the event can no
  // longer be recording it: then gsi1 shows every holder, and none is given a second one.
  if (target.type === 'none' && reconcilable(event, deps.clock()))
    applied = await tryReconcile(deps, address, event);
  if (applied === 'not_found' || applied === 'not_candidate') applied = await tryAdopt(deps, address, event);
  if (applied === 'held') return notFound(deps, event, DSN_HOLD_MS);
  if (applied === 'not_found' || applied === 'not_candidate') {
    return notFound(deps, event);
  }
  if (applied.result === 'applied' || applied.result === 'reconciled')
    deps.metrics.add('delivery_events', { kind: event.kind });
  if (applied.suppress) await suppress(deps, applied.message, event);
  if (applied.outcome) await recordAbuseOutcome(deps, applied.message, applied.outcome);
  return applied.result;
}

/** A Cloudflare REST send learns Cloudflare's messageId from its first event (core/reconcile.ts). */
async function tryAdopt(deps: BaseDeps, address: AddressRecord, event: DeliveryEvent): Promise<Applying> {
  if (event.source !== 'cloudflare') return 'not_found';
  const candidates = adoptCandidates(await listCfPending(deps.db, address.identity_id), event);
  if (candidates.length !== 1) {
    if (candidates.length > 1) {
      deps.metrics.add('cloudflare_adopt_ambiguous');
      deps.log.warn('ambiguous Cloudflare id adoption: nothing changed', {
        event: hashed(event.event_id),
        candidates: candidates.length,
      });
    }
    return 'not_found';
  }
  return applyTo(deps, address.identity_id, candidates[0]!.id, event, { adopt: true });
}

/** Reconciliation of uncertain sends: exactly one candidate, else nothing changes. */
async function tryReconcile(deps: BaseDeps, address: AddressRecord, event: DeliveryEvent): Promise<Applying> {
  // A report names its message by its signed return path: it never reconciles one.
  if (
    event.source === 'dsn' ||
    event.subject === undefined ||
    !event.provider_message_id ||
    event.provider_message_id.startsWith('test-')
  )
    return 'not_found';
  const candidates = reconcileCandidates(await listUncertain(deps.db, address.identity_id), event);
  if (candidates.length === 0) return 'not_found';
  if (candidates.length > 1) {
    deps.metrics.add('reconcile_ambiguous');
    deps.log.warn('ambiguous reconciliation: nothing changed', {
      event: hashed(event.event_id),
      candidates: candidates.length,
    });
    return 'not_found';
  }
  const applied = await applyTo(deps, address.identity_id, candidates[0].id, event, { reconcile: true });
  if (typeof applied === 'object' && applied.result === 'reconciled') {
    deps.metrics.add('reconciled');
    deps.log.info('uncertain message reconciled', {
      message_id: candidates[0].id,
    });
  }
  return applied;
}

function notFound(
  deps: BaseDeps,
  event: Pick<DeliveryEvent, 'event_id' | 'provider_message_id' | 'occurred_at'>,
  retryFor = ORPHAN_AGE_MS,
): ConsumeOutcome {
  if (deps.clock() - event.occurred_at < retryFor) return 'retry';
  deps.metrics.add('delivery_orphaned');
  deps.log.warn('orphaned delivery event', {
    event: hashed(event.event_id),
    provider_message_id: event.provider_message_id ? hashed(event.provider_message_id) : undefined,
  });
  return 'orphaned';
}

/**
 * Suppressions: hard bounce → hard_bounce, complaint → complaint, a provider's own
 * suppression → provider; permanent. suppression.created only from the message that created the
 * row, with a deterministic id (a consumer retry writes nothing new).
 */
async function suppress(deps: BaseDeps, message: MessageRecord, event: DeliveryEvent): Promise<void> {
  const reason: SuppressionReason =
    event.kind === 'complained' ? 'complaint' : event.provider_suppressed ? 'provider' : 'hard_bounce';
  await addSuppression(deps, message, event.recipient, reason);
}

const hashed = (s: string) => sha256Hex(s).slice(0, 16);
