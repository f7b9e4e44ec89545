import { notHeld } from './errors.ts';
import type { HeldReason, HoldPolicy, MessageRecord, ReceivePolicy } from './model.ts';
import { canonicalAddress } from './recipients.ts';
import { type ContactCounts, isKnownRecipient } from './suppressions.ts';

/**
 * What an agent may read (docs/guides/receiving.md › Held mail, docs/security.md › What an agent
 * sees of held mail): which received messages are held back, why, how much held mail an identity
 * keeps, how much mail a stranger may put in front of it, and the one predicate every reader asks
 * (`maySee`). Pure: functions/inbound/screen.ts reads the facts, store/hold.store.ts writes.
 */

/** `receive_policy.hold`: hold nothing, unauthenticated mail, or mail neither known nor allowed. */
export const HOLD_POLICIES = ['none', 'unauthenticated', 'unknown'] as const satisfies readonly HoldPolicy[];
export type { HeldReason, HoldPolicy, ReceivePolicy };

/** The default stranger rate, per identity and hour: beyond it such mail is held (`rate`). */
export const STRANGER_RATE = { per_sender: 10, total: 50 } as const;
/** The stranger rate's window: fixed hours. */
export const STRANGER_WINDOW_MS = 3600_000;

/**
 * What an identity keeps held at most: past either cap a message that would be held is not stored
 * (docs/guides/receiving.md › Held mail: it is counted as `dropped`; its raw copy stays where the
 * receipt put it).
 */
export const HELD_CAPS = { count: 1000, bytes: 200 * 1024 * 1024 } as const;

/** The receive list entries that match a sender (its address, its `@domain`). */
export interface ReceiveListMatch {
  block: boolean;
  /** An allow entry matched; `unauthenticated`: one of them admits unauthenticated mail too. */
  allow?: { unauthenticated: boolean };
}

/** What the screen decides for one received copy before the stranger rate. */
export interface Screened {
  listed: 'allow' | 'block' | null;
  known_sender: boolean;
  held?: HeldReason;
  /** Neither known nor allowed: the stranger rate counts it (when it is not held already). */
  stranger: boolean;
}

/**
 * The screen of one received copy, in order: a block entry holds it (`blocked`, whatever it
 * proves: blocking a forged From costs nothing); an allow entry admits authenticated mail, and
 * unauthenticated mail only when it says `unauthenticated: true` (a forged From of an allowed
 * address is held `unauthenticated` otherwise, whatever the policy); then the identity's policy:
 * `unauthenticated` holds what does not prove its From, `unknown` also what proves a From that is
 * no contact. A known sender is a contact whose message proves it.
 */
export function screenCopy(args: {
  policy: HoldPolicy;
  authenticated: boolean;
  contact: ContactCounts | undefined;
  lists: ReceiveListMatch;
}): Screened {
  const known = args.authenticated && isKnownRecipient(args.contact);
  const base = { known_sender: known };
  if (args.lists.block) return { ...base, listed: 'block', held: 'blocked', stranger: false };
  const allow = args.lists.allow;
  if (allow && (args.authenticated || allow.unauthenticated))
    return { ...base, listed: 'allow', stranger: false };
  if (allow) return { ...base, listed: null, held: 'unauthenticated', stranger: !known };
  const held = policyHolds(args.policy, args.authenticated, known);
  return { ...base, listed: null, stranger: !known, ...(held ? { held } : {}) };
}

function policyHolds(policy: HoldPolicy, authenticated: boolean, known: boolean): HeldReason | undefined {
  if (policy === 'none') return undefined;
  if (!authenticated) return 'unauthenticated';
  return policy === 'unknown' && !known ? 'unknown' : undefined;
}

/** The stranger rate's limits for an identity (its policy's, else the defaults). */
export function strangerLimits(policy: ReceivePolicy | undefined): { per_sender: number; total: number } {
  return {
    per_sender: policy?.stranger_rate?.per_sender ?? STRANGER_RATE.per_sender,
    total: policy?.stranger_rate?.total ?? STRANGER_RATE.total,
  };
}

/** The window a time falls in, and the counter keys of a sender in it (hashed by the caller). */
export function strangerWindow(now: number): number {
  return Math.floor(now / STRANGER_WINDOW_MS);
}

/**
 * Past the rate: this copy's counts in the window (this copy included) above a limit. An unknown
 * count (the counter's answer was lost) counts as past it: the rate errs towards holding.
 */
export function pastStrangerRate(
  counts: { sender?: number; total?: number },
  limits: { per_sender: number; total: number },
): boolean {
  if (counts.sender === undefined || counts.total === undefined) return true;
  return counts.sender > limits.per_sender || counts.total > limits.total;
}

/** The sender whose stranger count a copy takes: its canonical From. */
export const strangerOf = (fromAddress: string) => canonicalAddress(fromAddress);

// ── Who may see held mail ─────────────────────────────────────────────────────────────────────

/** The permission that reads, releases and deletes held mail. */
export const HOLD_PERMISSION = 'messages:hold';

/** The event a held message is announced by (to holders of messages:hold only). */
export const HELD_EVENT = 'message.held';

/** Whether this key may see held mail. */
export const maySeeHeld = (key: { scopes: readonly string[] }) => key.scopes.includes(HOLD_PERMISSION);

/**
 * The one predicate every reader asks (the messages and threads routes, the MCP tools through
 * them, the event feed, a push stream): may this key see this message or event? A held message,
 * and the event that announces one, only with `messages:hold`.
 */
export function maySee(
  key: { scopes: readonly string[] },
  item: { held?: unknown } | { type: string; data?: unknown },
): boolean {
  if (maySeeHeld(key)) return true;
  if ('type' in item) return item.type !== HELD_EVENT;
  return !item.held;
}

/** Whether a message is held now. */
export const isHeld = (m: Pick<MessageRecord, 'held'>): boolean => m.held !== undefined;

/** 409 message_not_held: release and delete act on held mail only. */
export function checkHeld(m: MessageRecord): void {
  if (isHeld(m)) return;
  throw notHeld(m.direction, m.status);
}

/**
 * Release: the held message becomes an ordinary received message; it takes a new place in the
 * identity's feed in the write that stores it (store/hold.store.ts › releaseHeld).
 */
export function releasedMessage(m: MessageRecord, now: number, by: string): MessageRecord {
  checkHeld(m);
  const { held, ...rest } = m;
  return {
    ...rest,
    released: { reason: held!.reason, at: now, by },
    updated_at: now,
    version: m.version + 1,
  };
}
