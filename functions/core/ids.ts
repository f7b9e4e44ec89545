import { createHash } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A ULID whose time part is `timeFrom`'s and whose random part comes from a hash of `seed`: the same
 * inputs always give the same id. Loopback uses it for the inbound copy, so a repeated injection
 * writes the same item instead of a second message.
 */
export function derivedUlid(timeFrom: string, seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[digest[i] & 31];
  return `${timeFrom.slice(0, 10).toLowerCase()}${random}`;
}

/** `msg_01j…` → `01j…` */
export const ulidOf = (prefixedId: string) => prefixedId.slice(prefixedId.indexOf('_') + 1);

/**
 * The public ids' shapes: a prefix and a lower-case ULID. Every check of an id from a path, a body
 * or a queue message reads these (a malformed id is a 404 without a read).
 */
export const ID_PATTERNS = {
  message: /^msg_[0-9a-z]{26}$/,
  thread: /^thr_[0-9a-z]{26}$/,
  tenant: /^ten_[0-9a-z]{26}$/,
  identity: /^idn_[0-9a-z]{26}$/,
  key: /^key_[0-9a-z]{26}$/,
  event: /^evt_[0-9a-z]{26}$/,
  webhook: /^whk_[0-9a-z]{26}$/,
  domain: /^dom_[0-9a-z]{26}$/,
} as const;

export const isId = (kind: keyof typeof ID_PATTERNS, s: string): boolean => ID_PATTERNS[kind].test(s);
