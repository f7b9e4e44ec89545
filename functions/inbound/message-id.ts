import { laterCopy } from '../core/inbound.ts';
import { canonicalAddress } from '../core/recipients.ts';
import type { BaseDeps } from '../deps.ts';
import { getMessageIdMarker, type MessageIdMarker, recordDuplicate } from '../store/inbound.store.ts';
import type { RecipientCopy } from './inbound-record.ts';
import { senderOf } from './inbound-record.ts';

/**
 * Duplicates by Message-ID (docs/guides/receiving.md › Duplicates): a copy whose Message-ID the
 * identity received within the window is, by core/inbound.ts › laterCopy, a duplicate of the first
 * message (not stored again) or a possible duplicate (stored, flagged, in the first message's
 * thread). The marker that remembers the first is written with it (functions/store/inbound.store.ts).
 */

/** The ports these steps use. */
type Ports = Pick<BaseDeps, 'db' | 'clock' | 'metrics' | 'log'>;

/** What an earlier message with the copy's Message-ID makes of it; undefined when there is none. */
export type EarlierCopy = { marker: MessageIdMarker } & ReturnType<typeof laterCopy>;

export async function earlierCopy(deps: Ports, args: RecipientCopy): Promise<EarlierCopy | undefined> {
  const rfcMessageId = args.parsed.rfcMessageId;
  if (!rfcMessageId) return undefined;
  const marker = await getMessageIdMarker(deps.db, args.address.identity_id, rfcMessageId, deps.clock());
  if (!marker) return undefined;
  return {
    marker,
    ...laterCopy(marker, { from: canonicalAddress(senderOf(args).address), auth: args.auth }),
  };
}

/**
 * Record the copy as a duplicate of the first message: no message, no event; its dedupe key names
 * that message, and the marker counts it. `repeat`: the copy was recorded or stored already.
 */
export async function recordAsDuplicate(
  deps: Ports,
  args: RecipientCopy,
  key: string,
  marker: MessageIdMarker,
): Promise<'recorded' | 'repeat'> {
  const outcome = await recordDuplicate(deps.db, {
    identityId: args.address.identity_id,
    dedupeKey: key,
    rfcMessageId: args.parsed.rfcMessageId!,
    of: marker.message_id,
    now: deps.clock(),
  });
  deps.metrics.add('inbound_duplicates');
  if (outcome === 'recorded')
    deps.log.info('inbound copy recorded as a duplicate', {
      identity_id: args.address.identity_id,
      duplicate_of: marker.message_id,
    });
  return outcome;
}
