import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalAddress } from './recipients.ts';

/**
 * Signed return paths (docs/guides/receiving.md › Which reports count): the envelope sender an SMTP
 * relay send uses for one recipient's copy, so that a bounce report can prove it answers pmail's own
 * envelope. Every recipient's copy has its own envelope (MAIL FROM) and so its own address:
 *
 *     {local}+b{message ulid}{recipient index}{mac}@{domain}
 *
 * `{local}@{domain}` is the message's From address (the identity's, so the report routes back to
 * it like any mail), the index is the recipient's position in the message's deliveries, and the MAC
 * is an HMAC-SHA256 under the deployment's hash key (the keys secret) of the identity, the message,
 * the index and the recipient's canonical address, 12 base-32 characters (60 bits: a forger must
 * deliver a report per guess). The token takes 40 characters and the index (decimal), so a From
 * local part of up to 21 characters always carries one (23 for the first ten recipients). Only pmail can mint one; each names one recipient
 * of one message, and a recipient sees only its own. Pure.
 */

/** RFC 5321 § 4.5.3.1.1: a local part is at most 64 octets. */
export const MAX_LOCAL_PART = 64;
const MAC_CHARS = 12;
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const DETAIL = /^b([0-9a-z]{26})(\d{1,3})([0-9a-z]{12})$/;

/** The recipient a return path was minted for: the message and the recipient's index in its deliveries. */
export interface ReturnPathClaim {
  messageId: string;
  index: number;
  mac: string;
}

function returnPathMac(
  hashKey: string,
  identityId: string,
  messageId: string,
  index: number,
  recipient: string,
) {
  const digest = createHmac('sha256', hashKey)
    .update(`return-path:${identityId}:${messageId}:${index}:${canonicalAddress(recipient)}`)
    .digest();
  let mac = '';
  for (let i = 0; i < MAC_CHARS; i++) mac += ALPHABET[digest[i] & 31];
  return mac;
}

/**
 * The signed return path of one recipient's copy; undefined when the From address cannot carry one
 * (a local part that already has a `+`, or one the token would take past 64 octets): that copy goes
 * out with the From address as its envelope sender, and no mailed report about it counts.
 */
export function returnPathFor(
  hashKey: string,
  m: { identityId: string; messageId: string; from: string },
  index: number,
  recipient: string,
): string | undefined {
  const at = m.from.lastIndexOf('@');
  const local = m.from.slice(0, at);
  if (at <= 0 || local.includes('+') || !/^msg_[0-9a-z]{26}$/.test(m.messageId)) return undefined;
  const mac = returnPathMac(hashKey, m.identityId, m.messageId, index, recipient);
  const tagged = `${local}+b${m.messageId.slice(4)}${index}${mac}`;
  if (tagged.length > MAX_LOCAL_PART) return undefined;
  return `${tagged}${m.from.slice(at)}`;
}

/** What a `+detail` claims, when it has a return path's shape (the MAC is checked by `returnPathVerifies`). */
export function returnPathClaim(detail: string | undefined): ReturnPathClaim | undefined {
  const m = DETAIL.exec((detail ?? '').toLowerCase());
  if (!m) return undefined;
  return { messageId: `msg_${m[1]}`, index: Number(m[2]), mac: m[3] };
}

/** Whether the claim's MAC is the one pmail minted for this identity's message and this recipient. */
export function returnPathVerifies(
  hashKey: string,
  identityId: string,
  claim: ReturnPathClaim,
  recipient: string,
): boolean {
  const expected = Buffer.from(returnPathMac(hashKey, identityId, claim.messageId, claim.index, recipient));
  const given = Buffer.from(claim.mac);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** MAIL FROM:<> — the null reverse-path every delivery status report is sent with (RFC 5321 § 4.5.5). */
export const isNullReversePath = (source: string | undefined): boolean => {
  const s = (source ?? '').trim();
  return s === '' || s === '<>';
};

/**
 * The return paths of a message's queued recipients, by canonical address (Claim hands them to the
 * SMTP relay's transport task, which holds no keys). A recipient without one is left out.
 */
export function returnPathsOf(
  hashKey: string,
  m: {
    identity_id: string;
    id: string;
    from: { address: string };
    deliveries?: readonly { address: string; status: string }[];
  },
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [index, d] of (m.deliveries ?? []).entries()) {
    if (d.status !== 'queued') continue;
    const path = returnPathFor(
      hashKey,
      { identityId: m.identity_id, messageId: m.id, from: m.from.address },
      index,
      d.address,
    );
    if (path) out[canonicalAddress(d.address)] = path;
  }
  return out;
}
