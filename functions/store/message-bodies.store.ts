import type { SentBody } from '../core/message-body.ts';
import { batchedReads } from './batch-reads.ts';
import { type Db, isOutcomeUnknown } from './db.ts';

/**
 * A sent message's body item (`I#{identity}` / `MB#{message}`): its text, sanitised HTML and
 * attachment list, written once after the message's commit and never again
 * (docs/design/cost.md › Sent bodies). The message item, which the claim, Record and each delivery
 * event rewrite, carries none of it, so those writes stay at the message's own size.
 */

export const BODY_SK_PREFIX = 'MB#';
const bodyKey = (identityId: string, messageId: string) => ({
  pk: `I#${identityId}`,
  sk: `${BODY_SK_PREFIX}${messageId}`,
});

/** How often a body put whose answers keep getting lost is sent before the unknown outcome goes up. */
const BODY_SENDS = 3;

/**
 * Store a sent message's body. An idempotent write (docs/lost-answers.md › Idempotent update): an
 * unconditional put of the same item, whose second application changes nothing, so an unknown
 * outcome sends it again, at most BODY_SENDS times. Only the request whose put committed the message
 * writes it, with the body it composed; a body that never lands is read back from the MIME.
 */
export async function putSentBody(
  db: Db,
  identityId: string,
  messageId: string,
  body: SentBody,
): Promise<void> {
  const item = {
    ...bodyKey(identityId, messageId),
    type: 'body',
    ...(body.text !== undefined ? { text: body.text } : {}),
    ...(body.html !== undefined ? { html: body.html } : {}),
    ...(body.body_truncated ? { body_truncated: true } : {}),
    // One JSON string: the list round-trips whatever its shape, and empty lists cost nothing.
    ...(body.attachments.length ? { attachments: JSON.stringify(body.attachments) } : {}),
  };
  for (let send = 1; ; send++) {
    try {
      await db.put({ TableName: db.table, Item: item });
      return;
    } catch (err) {
      if (!isOutcomeUnknown(err) || send >= BODY_SENDS) throw err;
    }
  }
}

function fromItem(item: Record<string, unknown>): SentBody {
  return {
    ...(typeof item.text === 'string' ? { text: item.text } : {}),
    ...(typeof item.html === 'string' ? { html: item.html } : {}),
    ...(item.body_truncated === true ? { body_truncated: true } : {}),
    attachments: typeof item.attachments === 'string' ? JSON.parse(item.attachments) : [],
  };
}

/** The body items of the identity's messages `ids` (one BatchGetItem per 100), by message id; a missing one is absent. */
export async function getSentBodies(
  db: Db,
  identityId: string,
  ids: readonly string[],
): Promise<Map<string, SentBody>> {
  const batched = batchedReads(db);
  const found = await Promise.all(
    ids.map(async (id) => {
      const out = await batched.get({ TableName: db.table, Key: bodyKey(identityId, id) });
      return out.Item ? ([id, fromItem(out.Item)] as const) : undefined;
    }),
  );
  return new Map(found.filter((f) => f !== undefined));
}
