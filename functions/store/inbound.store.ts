import type { MessageRecord } from '../core/model.ts';
import type { Db } from './db.ts';
import { findByProviderId, getMessage } from './messages.store.ts';

/** SES's own Message-IDs: `<{SES message id}@{region}.amazonses.com>`. */
const SES_RFC_ID = /^<([^@<>\s]+)@[a-z0-9-]+\.amazonses\.com>$/i;
/** pmail's own Message-IDs: `<{ulid}@{domain}>` for the message `msg_{ulid}` (core/compose.ts › rfcMessageIdFor). */
const PMAIL_RFC_ID = /^<([0-9a-z]{26})@[^@<>\s]+>$/i;

/**
 * The outbound message of this identity that an RFC 5322 Message-ID names, if any: pmail's own ids
 * by a GetItem of the message they name, SES's by the provider id index (gsi1). Either way the
 * stored message must belong to the identity and carry that id (its own, or SES's for its provider
 * id), so a guessed id of another identity's message threads nothing.
 */
export async function findOutboundByRfcId(
  db: Db,
  identityId: string,
  rfcMessageId: string,
): Promise<MessageRecord | undefined> {
  const id = rfcMessageId.trim();
  const own = PMAIL_RFC_ID.exec(id);
  if (own) {
    const m = await getMessage(db, identityId, `msg_${own[1].toLowerCase()}`);
    if (m && m.direction === 'outbound' && sameRfcId(m.rfc_message_id, id)) return m;
  }
  const ses = SES_RFC_ID.exec(id);
  if (ses) {
    const match = await findByProviderId(db, ses[1]);
    if (match.type !== 'one' || match.identity_id !== identityId) return undefined;
    const m = await getMessage(db, identityId, match.message_id);
    if (
      m &&
      m.direction === 'outbound' &&
      m.provider_message_id === ses[1] &&
      (sameRfcId(m.rfc_message_id, id) || m.provider === 'ses')
    )
      return m;
  }
  return undefined;
}

/** Message-IDs compare with the domain part case-insensitive (RFC 5322 § 3.6.4 keeps the local part as written). */
function sameRfcId(a: string | undefined, b: string): boolean {
  if (!a) return false;
  const at = (s: string) => s.lastIndexOf('@');
  return (
    a.slice(0, at(a)) === b.slice(0, at(b)) && a.slice(at(a)).toLowerCase() === b.slice(at(b)).toLowerCase()
  );
}
