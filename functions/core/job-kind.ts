import type { MessageKind } from './model.ts';

/**
 * Category and kind: whether the recipient may refuse a message. `elective` mail is
 * blocked by an unsubscribe; `transactional` mail (a sign-in link, a receipt) is blocked only by a
 * hard bounce, a complaint or a suppression that blocks everything.
 *
 * Named `consent_kind` on the send command and the stored message because pmail's `kind`
 * (`transactional | marketing | auto_reply`, caller-set) already answers the other question,
 * the category.
 */
export type ConsentKind = 'transactional' | 'elective';
export const CONSENT_KINDS = ['transactional', 'elective'] as const satisfies readonly ConsentKind[];

/** What the accessor reads: a send command or a stored message (both carry `kind`). */
export interface HasConsentKind {
  kind: MessageKind;
  /** Set from a template only, never by an API caller. */
  consent_kind?: ConsentKind;
}

/**
 * The one accessor of a message's consent kind, read at enqueue (check 16) and at send (the
 * claim's re-check) alike: the template's kind when a template set it; otherwise marketing mail is
 * elective and everything else transactional (a non-template send cannot declare itself elective
 * any other way).
 */
export function consentKindOf(m: HasConsentKind): ConsentKind {
  if (m.consent_kind) return m.consent_kind;
  return m.kind === 'marketing' ? 'elective' : 'transactional';
}
