import { idempotencyConflict, requestInProgress } from './errors.ts';

/**
 * An Idempotency-Key's item as its verdicts read it (store/idempotency.store.ts keeps it, and
 * decodes its stored answer only when a verdict asks for it).
 */
export interface KeyState {
  state: 'in_progress' | 'completed';
  lease_until?: number;
  fingerprint: string;
  message_id?: string;
  expires_at: number;
}

/** What a key's item means for a request: free, a stored answer to replay, a conflict, or still running. */
export type KeyVerdict =
  | { type: 'absent' }
  | { type: 'replay'; response: string; message_id: string }
  | { type: 'conflict'; message_id?: string }
  | { type: 'in_progress' };

/**
 * The verdict on a key's item for a request with `fingerprint` at `now` (docs/architecture.md ›
 * The submit path): free when there is none, it expired or its lease passed; a completed key
 * replays its answer (`answer` decodes it) to the same request and conflicts with another; a key in
 * progress runs while its lease does.
 */
export function keyVerdict(
  item: KeyState | undefined,
  fingerprint: string,
  now: number,
  answer: () => string,
): KeyVerdict {
  if (!item || item.expires_at <= now) return { type: 'absent' };
  if (item.state === 'completed') {
    if (item.fingerprint !== fingerprint) return { type: 'conflict', message_id: item.message_id };
    return { type: 'replay', response: answer(), message_id: item.message_id! };
  }
  if ((item.lease_until ?? 0) > now) return { type: 'in_progress' };
  return { type: 'absent' };
}

/**
 * A reservation's put refused by `old`: take the key over when its lease passed, unless it names a
 * message of another request (that message may exist, and its request is not this one: a
 * conflict); else the verdict on what refused it, a free key being another request's in flight.
 */
export function afterRefusedPut(
  old: KeyState | undefined,
  fingerprint: string,
  now: number,
  answer: () => string,
): KeyVerdict | { type: 'take_over' } {
  const verdict = keyVerdict(old, fingerprint, now, answer);
  if (verdict.type !== 'absent') return verdict;
  if (!old) return { type: 'in_progress' };
  if (old.message_id && old.fingerprint !== fingerprint) return { type: 'conflict' };
  return { type: 'take_over' };
}

/** A takeover refused: the verdict on what the winner left, a free key being another takeover in flight. */
export const afterLostTakeover = (verdict: KeyVerdict): KeyVerdict =>
  verdict.type === 'absent' ? { type: 'in_progress' } : verdict;

/**
 * The stored answer to replay, undefined when the key is free; another request under the key is
 * 409 idempotency_conflict, a running one 409 request_in_progress.
 */
export function storedAnswer(verdict: KeyVerdict): string | undefined {
  switch (verdict.type) {
    case 'absent':
      return undefined;
    case 'replay':
      return verdict.response;
    case 'conflict':
      throw idempotencyConflict(verdict.message_id);
    case 'in_progress':
      throw requestInProgress();
  }
}
