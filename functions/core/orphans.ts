/**
 * Objects of a submit that never committed. A submit
 * writes its objects — `t/{ten}/i/{idn}/out/{msg}.eml` and its links' `…/out/{msg}/a/{att}` — and
 * then the message, the commit point (objects first, so a message never
 * points at a missing object). A crash or a lost commit between the two leaves objects that no
 * message names. The message id is minted per submit call (a retry of the request gets a new one),
 * and the commit runs inside the API function's invocation (15 s timeout, idempotency lease 60 s):
 * an object older than the grace below whose message does not exist will never get one.
 */

/** An object younger than this may still be committed: the orphan pass leaves it alone. */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/**
 * How far back each pass looks (it runs daily): two days, so one failed pass loses nothing. Older
 * objects are not listed again, which keeps a pass's cost to the window's objects, not the bucket's.
 */
export const ORPHAN_WINDOW_MS = 2 * 24 * 60 * 60 * 1000;

/** The message a key under an identity's `out/` prefix belongs to (`msg_{ulid}`), or undefined. */
export function outboundMessageOf(relativeKey: string): string | undefined {
  const m = /^(msg_[0-9a-z]{26})(?:\.eml$|\/)/.exec(relativeKey);
  return m?.[1];
}

/** Whether a message minted at `mintedAt` is inside this pass's window (`now` the pass's time). */
export function inOrphanWindow(mintedAt: number, now: number): boolean {
  return mintedAt >= now - ORPHAN_WINDOW_MS && mintedAt <= now - ORPHAN_GRACE_MS;
}
