import { bodyOf, type MessageBody, readsSentBody, type SentBody } from '../core/message-body.ts';
import type { MessageRecord } from '../core/model.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { Db } from '../store/db.ts';
import { getSentBodies } from '../store/message-bodies.store.ts';

/**
 * The one way to read messages' bodies, whatever their direction and storage
 * (core/message-body.ts › bodyOf): a received message's from its record, a sent message's from its
 * body item (one BatchGetItem for all of them), or, where `mime` allows and the item is missing,
 * read back from its stored MIME. Every view (a message, a thread, a list page) and any reader of
 * text (a search index) goes through here, so the rule lives once.
 *
 * `mime: false` (a page of the list) never reads MIME objects: a sent message without a body item
 * shows no body there.
 */
export async function loadBodies(
  ports: { db: Db; blobs?: BlobStore },
  records: readonly MessageRecord[],
  opts: { mime: boolean },
): Promise<Map<string, MessageBody>> {
  const sentIds = [...new Set(records.filter(readsSentBody).map((m) => `${m.identity_id}\n${m.id}`))];
  const byIdentity = new Map<string, string[]>();
  for (const key of sentIds) {
    const [identityId, id] = key.split('\n');
    byIdentity.set(identityId, [...(byIdentity.get(identityId) ?? []), id]);
  }
  const items = new Map<string, SentBody>();
  await Promise.all(
    [...byIdentity].map(async ([identityId, ids]) => {
      for (const [id, body] of await getSentBodies(ports.db, identityId, ids)) items.set(id, body);
    }),
  );
  const out = new Map<string, MessageBody>();
  await Promise.all(
    records.map(async (m) => {
      const sent = readsSentBody(m)
        ? (items.get(m.id) ?? (opts.mime ? await fromMime(ports.blobs, m) : undefined))
        : undefined;
      out.set(m.id, bodyOf(m, sent));
    }),
  );
  return out;
}

/** One message's body (`loadBodies` of one, its MIME read when its body item is missing). */
export async function loadBody(ports: { db: Db; blobs?: BlobStore }, m: MessageRecord): Promise<MessageBody> {
  return (await loadBodies(ports, [m], { mime: true })).get(m.id)!;
}

async function fromMime(blobs: BlobStore | undefined, m: MessageRecord): Promise<SentBody | undefined> {
  const raw = blobs ? await blobs.get(m.raw_key) : undefined;
  // The parsers (mailparser, the HTML sanitiser) load with the first body read back.
  return raw ? (await import('./mime-body.ts')).sentBodyFromMime(raw.body) : undefined;
}
