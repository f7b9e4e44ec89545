import { HELD_EVENT } from './hold.ts';

/**
 * Which events a key may read, and which a filter selects: the one rule of `GET /v1/events` and of
 * the stream (docs/guides/stream.md › What a key sees). Pure.
 *
 * An event is read through its reference: the fields that decide who sees it and what a filter
 * matches. The same reference is written on the event's slot in the tenant's feed
 * (store/events.store.ts › eventPutItem), so a reader decides on the slot without reading the event.
 */

/** What decides who reads an event and what a filter matches: its type and whose it is. */
export interface EventRef {
  type: string;
  /** The identity the event is about (`data.identity_id`); none: a tenant-wide event. */
  identity_id?: string;
  /** The conversation the event is about (`data.thread_id`), when it names one. */
  thread_id?: string;
}

/** The reference of an event, from its `data`. */
export function refOf(event: { type: string; data: Record<string, unknown> }): EventRef {
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return {
    type: event.type,
    identity_id: text(event.data.identity_id),
    thread_id: text(event.data.thread_id),
  };
}

/** What every message event's data starts with: which message, whose, and its conversation. */
export function aboutMessage(m: { id: string; identity_id: string; thread_id?: string }) {
  return { message_id: m.id, identity_id: m.identity_id, ...(m.thread_id ? { thread_id: m.thread_id } : {}) };
}

/**
 * Who reads: a tenant key (`identity_ids` absent) or an identity key (its identities); `sees_held`
 * when its key holds `messages:hold` (core/hold.ts › maySeeHeld).
 */
export interface EventReader {
  identity_ids?: readonly string[];
  sees_held?: boolean;
}

/**
 * Whether `reader` may read the event: a tenant key every event of its tenant; an identity key the
 * events about one of its identities, never a tenant-wide one (a suppression, a tenant's quota
 * warning); the event that announces held mail only with `messages:hold` (docs/guides/receiving.md
 * › Held mail). The tenant itself is checked by where the event is read from (the key's own tenant's feed).
 */
export function mayReadEvent(reader: EventReader, ref: EventRef): boolean {
  if (ref.type === HELD_EVENT && reader.sees_held !== true) return false;
  if (!reader.identity_ids) return true;
  return ref.identity_id !== undefined && reader.identity_ids.includes(ref.identity_id);
}

/** What a reader asks for: the events matching all of these (each absent: any). */
export interface EventFilter {
  identity_id?: string;
  thread_id?: string;
  /** Event types; `message.*` matches every type that starts with `message.`. */
  types?: string[];
}

/** Whether `type` is one of `patterns` (`message.*`: any type under `message.`). */
export function typeMatches(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => (p.endsWith('.*') ? type.startsWith(p.slice(0, -1)) : p === type));
}

/** Whether `reader` gets the event when it asks for `filter`: it may read it, and it matches. */
export function eventSelected(reader: EventReader, filter: EventFilter, ref: EventRef): boolean {
  if (!mayReadEvent(reader, ref)) return false;
  if (filter.identity_id !== undefined && ref.identity_id !== filter.identity_id) return false;
  if (filter.thread_id !== undefined && ref.thread_id !== filter.thread_id) return false;
  return !filter.types || typeMatches(filter.types, ref.type);
}
