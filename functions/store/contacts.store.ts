import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { type ContactCounts, canonicalAddress } from '../core/suppressions.ts';
import type { Db, TransactItem } from './db.ts';
import { batchGetItems } from './suppressions.store.ts';

/**
 * Contacts: `I#{idn}` / `C#{address}` with `inbound_count`, `authenticated_inbound_count` and
 * `outbound_count` (core/suppressions.ts › ContactCounts), read by require_known_recipient and reply
 * targeting, which only ask whether a count is above zero.
 * Submit writes `outbound_count` only while it is zero (the send reads the contact anyway), so a
 * known recipient costs no write. Only counters and one time: the
 * item stays well under one write unit.
 */
export const contactKey = (identityId: string, address: string) => ({
  pk: `I#${identityId}`,
  sk: `C#${canonicalAddress(address)}`,
});

export type ContactCount = keyof ContactCounts;

/**
 * One Update per distinct address for the submit transaction: `ADD outbound_count :1` (or the
 * counts named), creating the contact when absent. A transaction may not touch one item twice,
 * so addresses are deduplicated case-insensitively here.
 */
export function contactCountUpdates(
  db: Db,
  identityId: string,
  addresses: string[],
  now: number,
  counts: readonly ContactCount[] = ['outbound_count'],
): TransactItem[] {
  const unique = [...new Set(addresses.map(canonicalAddress))];
  const names = Object.fromEntries(counts.map((c, i) => [`#c${i}`, c]));
  return unique.map((address) => ({
    Update: {
      TableName: db.table,
      Key: contactKey(identityId, address),
      UpdateExpression: `SET #type = :type, last_at = :now ADD ${counts.map((_, i) => `#c${i} :one`).join(', ')}`,
      ExpressionAttributeNames: { '#type': 'type', ...names },
      ExpressionAttributeValues: { ':type': 'contact', ':now': now, ':one': 1 },
    },
  }));
}

/**
 * A send's recipients counted, each address its own unconditional update (docs/lost-answers.md:
 * never sent twice; a lost answer leaves the count at zero, and the next send to the address
 * writes it then): one promise per distinct address.
 */
export function countOutbound(
  db: Db,
  identityId: string,
  addresses: string[],
  now: number,
): Promise<unknown>[] {
  return contactCountUpdates(db, identityId, addresses, now).map((u) =>
    db.update((u as { Update: UpdateCommandInput }).Update),
  );
}

/** The identity's counts for these addresses, keyed by canonicalAddress (absent = no contact). */
export async function getContacts(
  db: Db,
  identityId: string,
  addresses: string[],
): Promise<Map<string, ContactCounts>> {
  const items = await batchGetItems(
    db,
    addresses.map((a) => contactKey(identityId, a)),
  );
  return new Map(
    items.map((i) => [
      (i.sk as string).slice(2),
      {
        inbound_count: Number(i.inbound_count ?? 0),
        authenticated_inbound_count: Number(i.authenticated_inbound_count ?? 0),
        outbound_count: Number(i.outbound_count ?? 0),
      },
    ]),
  );
}
