import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import type { Operation as SendOperation } from './compose.ts';

/** hex(sha256(s)) — pure; node:crypto hashing is computation, not I/O. */
export function sha256Hex(s: string | Uint8Array): string {
  return createHash('sha256').update(s).digest('hex');
}

/**
 * The Idempotency fingerprint:
 * hex(sha256(canonical_json({"body": body, "operation": op, "target": target}))), where target is
 * the identity id for send and "{identity_id}/{message_id}" for reply, reply_all and forward.
 * The body is hashed as received (parsed JSON), with no semantic normalisation.
 */
export function sendFingerprint(operation: SendOperation, target: string, body: unknown): string {
  return sha256Hex(canonicalJson({ body, operation, target }));
}

export function sendTarget(operation: SendOperation, identityId: string, messageId?: string): string {
  return operation === 'send' ? identityId : `${identityId}/${messageId}`;
}
