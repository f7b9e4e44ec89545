import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { isCfRestProviderId } from '../core/cf-outcome.ts';
import { isId } from '../core/ids.ts';
import type { MessageRecord, MessageStatus } from '../core/model.ts';
import { claimWriteSeen } from '../core/send-attempt.ts';
import { redactPayload } from '../core/template-payload.ts';
import { batchedReads } from './batch-reads.ts';
import { inboundKey, outboundKey } from './blobs.ts';
import type { Db } from './db.ts';
import {
  failedConditions,
  isConditionFailed,
  isOutcomeUnknown,
  isTransactionCanceled,
  isTransient,
  oldItem,
  outcomeUnknown,
  type TransactItem,
  writeToken,
} from './db.ts';
import { type FeedEntry, identityFeed, onFeed, readFeed, transactAt } from './feed.store.ts';
import { keys, MESSAGE_SK_PREFIX } from './table-keys.ts';

/**
 * Messages live in their identity's partition with their deliveries embedded, so one
 * recipient's transition and the message roll-up are one conditional write on `version`.
 */

/**
 * What the key and the ids already say is not stored again: `identity_id` is the partition and
 * `raw_key` follows from the ids. The message item is written about five times per send, so each
 * byte under 1 KB keeps those writes at one unit each (see `npm run bench`).
 */
/**
 * List fields stored only when non-empty: most messages have no cc, bcc, reply_to, labels or
 * flags, and leaving the empty lists out keeps a one-recipient message under 1 KB through its
 * last write, where each write costs 1 WCU instead of 2 (docs/design/cost.md).
 */
const OMITTED_WHEN_EMPTY = ['to', 'cc', 'bcc', 'reply_to', 'labels', 'flags'] as const;

function toItem(record: MessageRecord) {
  // The payload is spent: every write of a final message empties a transactional
  // template's variables here, so no write path can keep them.
  const m = redactPayload(record);
  const { identity_id: _identity, raw_key: _raw, template_variables: variables, ...stored } = m;
  const item: Record<string, unknown> = { ...stored };
  for (const field of OMITTED_WHEN_EMPTY) if (m[field]?.length === 0) delete item[field];
  // The variables are one JSON string: any JSON the schema admitted (empty maps, mixed arrays)
  // round-trips, and the emptied value reads back as {}.
  if (variables !== undefined) item.template_variables = JSON.stringify(variables);
  return { ...keys.message(m.identity_id, m.id), type: 'message', ...item, ...indexKeys(m) };
}

/**
 * The sparse index of queued messages by dispatch time (`gsi2`): its keys are set only
 * while the message is queued with a dispatch, so the sweeper reads exactly those. The partition is
 * one of DISPATCH_SHARDS, from the message id, so no single partition takes every queued message.
 */
export const DISPATCH_INDEX = { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' } as const;
export const DISPATCH_SHARDS = 8;

function dispatchIndex(m: MessageRecord) {
  const shard = m.id.charCodeAt(m.id.length - 1) % DISPATCH_SHARDS;
  // Held messages wait in their own partitions, by creation time.
  if (m.status === 'undispatched') {
    return {
      gsi2pk: `UD#${shard}`,
      gsi2sk: `${String(m.created_at).padStart(15, '0')}#${m.identity_id}#${m.id}`,
    };
  }
  if (m.status !== 'queued' || !m.dispatch) return {};
  return {
    gsi2pk: `DQ#${shard}`,
    gsi2sk: `${String(m.dispatch.at).padStart(15, '0')}#${m.identity_id}#${m.id}`,
  };
}

/** Queued messages whose dispatch time is before `before`, oldest first (keys only). */
export async function listDueDispatches(
  db: Db,
  before: number,
  limit = 100,
): Promise<{ identity_id: string; message_id: string }[]> {
  return listDispatchPartitions(db, 'DQ', before, limit);
}

/** The held `undispatched` messages, oldest first (keys only). */
export async function listUndispatched(
  db: Db,
  limit = 100,
): Promise<{ identity_id: string; message_id: string }[]> {
  return listDispatchPartitions(db, 'UD', Number.MAX_SAFE_INTEGER, limit);
}

async function listDispatchPartitions(
  db: Db,
  prefix: 'DQ' | 'UD',
  before: number,
  limit: number,
): Promise<{ identity_id: string; message_id: string }[]> {
  const found: { identity_id: string; message_id: string }[] = [];
  for (let shard = 0; shard < DISPATCH_SHARDS; shard++) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await db.query({
        TableName: db.table,
        IndexName: DISPATCH_INDEX.indexName,
        KeyConditionExpression: '#pk = :pk AND #sk < :before',
        ExpressionAttributeNames: { '#pk': DISPATCH_INDEX.partitionKey, '#sk': DISPATCH_INDEX.sortKey },
        ExpressionAttributeValues: {
          ':pk': `${prefix}#${shard}`,
          ':before': String(before).padStart(15, '0'),
        },
        ExclusiveStartKey: startKey,
        Limit: limit,
      });
      for (const item of out.Items ?? []) {
        const [, identityId, messageId] = String(item[DISPATCH_INDEX.sortKey]).split('#');
        found.push({ identity_id: identityId, message_id: messageId });
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey && found.length < limit * DISPATCH_SHARDS);
  }
  return found;
}

/**
 * A TransactWriteItem that stores `next` if the message is still at `version` (the CAS of
 * mutateMessage). A transaction (docs/lost-answers.md): the table's client resends it with its
 * ClientRequestToken, and DynamoDB applies it once.
 */
export function messagePutItem(db: Db, next: MessageRecord, version: number) {
  return {
    Put: {
      TableName: db.table,
      Item: toItem(next),
      ConditionExpression: 'version = :v',
      ExpressionAttributeValues: { ':v': version },
    },
  };
}

/**
 * Store `next` if the message is still at `version`, with `alsoWrite` (its event, audit entry,
 * idempotency record) in one transaction: `messagePutItem`'s condition, first in the transaction.
 * False when that condition failed (a lost race on the version: the caller reads again); any other
 * refusal goes up. A transaction (docs/lost-answers.md): the table's client resends it with its
 * ClientRequestToken, and DynamoDB applies it once; its events are positioned (store/feed.store.ts).
 */
export async function putMessageAtVersion(
  db: Db,
  next: MessageRecord,
  version: number,
  alsoWrite: unknown[],
): Promise<boolean> {
  try {
    await transactAt(db, [messagePutItem(db, next, version), ...alsoWrite] as never);
    return true;
  } catch (err) {
    // [message, ...alsoWrite]: only a lost race on the message's version is answered false.
    if (!failedConditions(err, ['message'] as const).has('message')) throw err;
    return false;
  }
}

/**
 * A message's place in its identity's feed (store/feed.store.ts): what `GET …/messages?after=`
 * and `wait_for_message` read in commit order. `now` is the clock at the commit.
 */
export const messageFeedEntry = (m: MessageRecord, now: number): FeedEntry => ({
  feed: identityFeed(m.identity_id),
  now,
  names: { message_id: m.id, direction: m.direction, thread_id: m.thread_id },
});

/** The outbound message `messageId` names (consistent read); undefined for another id, an inbound message, or none. */
export async function getOutboundMessage(
  db: Db,
  identityId: string,
  messageId: string,
): Promise<MessageRecord | undefined> {
  if (!isId('message', messageId)) return undefined;
  const m = await getMessage(db, identityId, messageId, true);
  return m?.direction === 'outbound' ? m : undefined;
}

/**
 * The sparse index keys, derived on every write so they cannot drift from the record:
 * gsi1 routes events by a live provider's message id (test ids `test-{ulid}` name the message
 * already, so test sends add no index write); gsi2 lists queued messages by dispatch time and undispatched ones (the sweeper) and an identity's uncertain messages
 * without a provider id (reconciliation) — exclusive states, so one index serves both — and disappears as soon as the message leaves that state.
 */
export const PROVIDER_INDEX = 'gsi1';
export const UNCERTAIN_INDEX = 'gsi2';
function indexKeys(m: MessageRecord) {
  const out: Record<string, string> = {};
  if (m.direction !== 'outbound') return m.held ? heldIndexKeys(m) : out;
  const pid = m.provider_message_id;
  if (pid && !pid.startsWith('test-')) {
    out.gsi1pk = `P#${pid}`;
    out.gsi1sk = `M#${m.id}`;
  }
  Object.assign(out, dispatchIndex(m));
  if (m.status === 'uncertain' && !pid) {
    out.gsi2pk = `U#${m.identity_id}`;
    out.gsi2sk = `M#${m.id}`;
  }
  // A Cloudflare REST send waits for its first event to learn Cloudflare's messageId
  // (core/reconcile.ts › adoptCandidates): listed per identity until then.
  if (isCfRestProviderId(pid) && m.status !== 'queued') {
    out.gsi2pk = `C#${m.identity_id}`;
    out.gsi2sk = `M#${m.id}`;
  }
  return out;
}

/** The gsi2 keys of a held message (store/hold.store.ts › listHeld): listed per identity, newest first. */
export const heldIndexKeys = (m: Pick<MessageRecord, 'identity_id' | 'id'>) => ({
  gsi2pk: `HD#${m.identity_id}`,
  gsi2sk: `${MESSAGE_SK_PREFIX}${m.id}`,
});

function fromItem(item: Record<string, unknown> | undefined): MessageRecord | undefined {
  if (!item) return undefined;
  const {
    pk,
    sk: _sk,
    type: _type,
    gsi1pk: _g1,
    gsi1sk: _g1s,
    gsi2pk: _g2,
    gsi2sk: _g2s,
    [MUTATION]: _mutation,
    ...rest
  } = item as Record<string, unknown> & { pk: string };
  for (const field of OMITTED_WHEN_EMPTY) rest[field] ??= [];
  if (typeof rest.template_variables === 'string')
    rest.template_variables = JSON.parse(rest.template_variables);
  const m = rest as unknown as Omit<MessageRecord, 'identity_id' | 'raw_key'>;
  const identityId = pk.slice(2);
  const rawKey =
    m.direction === 'outbound'
      ? outboundKey(m.tenant_id, identityId, m.id, m.raw_n)
      : inboundKey(m.tenant_id, identityId, m.id);
  return { ...m, identity_id: identityId, raw_key: rawKey };
}

export async function getMessage(
  db: Db,
  identityId: string,
  messageId: string,
  consistent = false,
): Promise<MessageRecord | undefined> {
  const out = await db.get({
    TableName: db.table,
    Key: keys.message(identityId, messageId),
    ConsistentRead: consistent,
  });
  return fromItem(out.Item);
}

/**
 * Storage of an accepted send, the commit point (docs/architecture.md › The submit path): the
 * conditional put of the message under the id its reservation minted, with its slot in the
 * identity's feed (one transaction: store/feed.store.ts › transactAt; `now` is the clock at the
 * commit). `written: false` with the message as stored when that id is taken already: an earlier
 * owner of the same Idempotency-Key wrote it, and it is the send.
 *
 * A transaction that recognises its own message (docs/lost-answers.md): the table's client resends
 * it with its ClientRequestToken, and DynamoDB answers the resend as the first send. Each request
 * of the key writes its own MIME object (`raw_key`, numbered by its reservation's `attempt`, which
 * one request holds), and no later write of the message changes it, so a refusal whose message
 * names this request's MIME object is this request's own message, whatever was written on it
 * since: `written: true`. An answer lost past the client's resends goes up: the message may be this
 * request's, and nothing may be given back.
 */
export async function putAcceptedMessage(
  db: Db,
  message: MessageRecord,
  now: number,
): Promise<{ written: true } | { written: false; existing: MessageRecord }> {
  const put = {
    Put: {
      TableName: db.table,
      Item: toItem(message),
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  };
  try {
    await transactAt(db, [onFeed(put, messageFeedEntry(message, now))]);
    return { written: true };
  } catch (err) {
    if (!failedConditions(err, ['message'] as const).has('message') || !isTransactionCanceled(err)) throw err;
    // Only a put racing a delete could see no item: read it.
    const existing =
      fromItem(err.CancellationReasons?.[0]?.Item) ??
      (await getMessage(db, message.identity_id, message.id, true));
    if (!existing) throw err;
    if (existing.raw_key === message.raw_key) return { written: true };
    return { written: false, existing };
  }
}

/** The attribute naming the last `mutateMessage` write of a message (its token, per write). */
const MUTATION = 'mt';

/**
 * Read–decide–write with a version check, retried on a lost race. `decide` returns the next record,
 * or undefined to leave the message as it is. Returns the record as stored after the call.
 *
 * An owned transition (docs/lost-answers.md): the version read is the owner's token, and the put
 * carries one of its own (`mt`). An unknown outcome re-reads the message: still at the version read,
 * the write did not land and is decided again; one version on with this write's token, it landed
 * (`written`); one version on with another's, the race was lost and is decided again. Moved on
 * further, whether this write landed cannot be told: the unknown outcome goes up, and the caller's
 * retry decides on the message as it is (the transaction with `alsoWrite` is resent by its
 * ClientRequestToken instead).
 */
export async function mutateMessage<R>(
  db: Db,
  identityId: string,
  messageId: string,
  // biome-ignore lint/suspicious/noExplicitAny: TransactWriteItems of the document client
  decide: (m: MessageRecord) => { next?: MessageRecord; result: R; alsoWrite?: any[] },
  attempts = 8,
): Promise<{ found: false } | { found: true; result: R; message: MessageRecord; written: boolean }> {
  for (let i = 0; i < attempts; i++) {
    const current = await getMessage(db, identityId, messageId, true);
    if (!current) return { found: false };
    const { next, result, alsoWrite } = decide(current);
    if (!next) return { found: true, result, message: current, written: false };
    const stored = { ...next, version: current.version + 1 };
    const token = writeToken();
    const put = {
      TableName: db.table,
      Item: { ...toItem(stored), [MUTATION]: token },
      ConditionExpression: 'version = :v',
      ExpressionAttributeValues: { ':v': current.version },
    };
    try {
      // Items to write with the message (events of the outbox) go in one transaction with it.
      if (alsoWrite?.length) {
        await transactAt(db, [{ Put: put }, ...alsoWrite]);
      } else {
        await db.put(put);
      }
      return { found: true, result, message: stored, written: true };
    } catch (err) {
      if (isConditionFailed(err)) continue;
      if (isOutcomeUnknown(err)) {
        const seen = await rawMessage(db, identityId, messageId);
        const version = Number(seen?.version);
        if (version === current.version) continue;
        if (version === stored.version && seen?.[MUTATION] === token)
          return { found: true, result, message: stored, written: true };
        if (version === stored.version) continue;
        throw err;
      }
      // A lost version race, or a concurrent transaction on the same item: read again and retry.
      if (
        isTransactionCanceled(err) &&
        (failedConditions(err, ['message'] as const).has('message') ||
          err.CancellationReasons?.some((r) => r.Code === 'TransactionConflict'))
      ) {
        await new Promise((r) => setTimeout(r, 5 * (i + 1)));
        continue;
      }
      throw err;
    }
  }
  throw new Error(`message ${messageId} kept changing: gave up after ${attempts} attempts`);
}

/** The message item as stored (consistent read), its write tokens included. */
async function rawMessage(
  db: Db,
  identityId: string,
  messageId: string,
): Promise<Record<string, unknown> | undefined> {
  const out = await db.get({
    TableName: db.table,
    Key: keys.message(identityId, messageId),
    ConsistentRead: true,
  });
  return out.Item;
}

/**
 * Whether a failed write may have been applied: its answer was lost inside the table client's retry
 * (`WriteOutcomeUnknown`) or reached the caller as a transient error DynamoDB did not answer (a
 * timeout, a reset connection, a 5xx). A definite refusal (a failed condition, a throttle) and a
 * connection never made are not.
 */
export function mayHaveApplied(err: unknown): boolean {
  return isOutcomeUnknown(err) || (isTransient(err) && outcomeUnknown(err));
}

/** How often claimSending sends its write while each answer is lost and nothing else has decided. */
const CLAIM_SENDS = 3;

/** What the claim's write answers: the claim written, refused (the message as it is), or refused by its guard. */
export type ClaimWrite =
  | { written: true; message: MessageRecord }
  | { written: false; current?: MessageRecord; guarded?: false }
  | { written: false; guarded: true };

/**
 * The transport task's first write (docs/architecture.md › The attempt's writes, step by step): the claim and
 * its `sending` mark in one conditional write, immediately before the one provider call. Admitted
 * while the message is queued with no claim. The claim written here always carries the mark, so a second invocation for the same claim, a duplicate execution (another
 * token) and a cancel that landed first are all refused; `written: false` gives the message as it
 * was (`ReturnValuesOnConditionCheckFailure`), or nothing when it is gone.
 *
 * With `guard` (a ConditionCheck on another item: a follow-up's thread has no new answer,
 * store/thread-replies.store.ts › noNewReplies) the write is one transaction of the claim and the
 * guard, so the claim is written only while the guard holds; a failed guard answers `guarded` and the
 * caller decides again. The transaction answers no item: the claimed message is read back.
 *
 * An owned transition (docs/lost-answers.md): the claim carries the invocation's nonce (`by`). When
 * the answer is lost (in the table client's retry or outside it) the message is read again, consistently,
 * and core/send-attempt.ts › claimWriteSeen decides: this nonce's claim is this write (`written`);
 * no claim on a queued message sends it again; anything else is a refusal like the condition's. A
 * refusal whose old item carries this nonce is this write's own earlier send. Only when that read
 * fails too does the error go up (the invocation cannot tell whether it holds the claim). Without
 * `by` the call draws its own nonce. The guarded transaction is resent by the table's client with
 * its ClientRequestToken, and DynamoDB answers the resend as the first send.
 */
export async function claimSending(
  db: Db,
  identityId: string,
  messageId: string,
  claim: { token: string; by?: string; at: number },
  guard?: TransactItem,
): Promise<ClaimWrite> {
  const mine = { token: claim.token, by: claim.by ?? writeToken() };
  const update = (): UpdateCommandInput => ({
    TableName: db.table,
    Key: keys.message(identityId, messageId),
    UpdateExpression: 'SET #claim = :claim, version = version + :one',
    ConditionExpression: '#status = :queued AND attribute_not_exists(#claim)',
    ExpressionAttributeNames: { '#claim': 'claim', '#status': 'status' },
    ExpressionAttributeValues: {
      ':claim': { token: mine.token, by: mine.by, at: claim.at, sending: true },
      ':one': 1,
      ':queued': 'queued',
    },
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
  for (let send = 1; ; send++) {
    try {
      if (guard) return await claimGuarded(db, update(), guard, mine);
      const out = await db.update(update());
      return { written: true, message: fromItem(out.Attributes)! };
    } catch (err) {
      if (isConditionFailed(err)) {
        const current = fromItem(oldItem<Record<string, unknown>>(err));
        if (current && claimWriteSeen(current, mine) === 'mine') return { written: true, message: current };
        return { written: false, current };
      }
      if (!mayHaveApplied(err) || send >= CLAIM_SENDS) throw err;
      const current = await getMessage(db, identityId, messageId, true);
      const seen = claimWriteSeen(current, mine);
      if (seen === 'mine') return { written: true, message: current! };
      if (seen === 'refused') return { written: false, current };
    }
  }
}

/** `claimSending`'s write with its guard: one transaction, the message read back once written. */
async function claimGuarded(
  db: Db,
  update: UpdateCommandInput,
  guard: TransactItem,
  mine: { token: string; by: string },
): Promise<ClaimWrite> {
  const { ReturnValues: _all, ...claim } = update;
  const key = update.Key as { pk: string; sk: string };
  for (let conflicts = 0; ; conflicts++) {
    try {
      await db.transact({ TransactItems: [{ Update: claim }, guard] as TransactItem[] });
      break;
    } catch (err) {
      if (!isTransactionCanceled(err)) throw err;
      const failed = failedConditions(err, ['message', 'guard'] as const);
      if (failed.has('message')) {
        const current = fromItem(err.CancellationReasons?.[0]?.Item);
        if (current && claimWriteSeen(current, mine) === 'mine') return { written: true, message: current };
        return { written: false, current };
      }
      if (failed.has('guard')) return { written: false, guarded: true };
      // Another transaction on the message or the thread at the same moment: nothing applied, send again.
      if (conflicts >= CLAIM_SENDS || !err.CancellationReasons?.some((r) => r.Code === 'TransactionConflict'))
        throw err;
    }
  }
  const message = await getMessage(db, key.pk.slice(2), key.sk.slice(MESSAGE_SK_PREFIX.length), true);
  return message ? { written: true, message } : { written: false };
}

export interface MessagePage {
  data: MessageRecord[];
  next_cursor: string | null;
}

/**
 * Newest first. Message sort keys are `M#{ulid}`, so the partition order is time order. A direction
 * or status filter is a FilterExpression, and so is leaving held mail out (core/hold.ts: only
 * `withHeld` lists it): pages are topped up until `limit` items are found or the partition ends.
 * The cursor is the sort key of the last item returned. `range` bounds the sort keys (a time range).
 */
export async function listMessages(
  db: Db,
  identityId: string,
  opts: {
    direction?: 'inbound' | 'outbound';
    status?: MessageStatus;
    limit: number;
    cursor?: string;
    withHeld?: boolean;
    /** Message ids from `low` to `high` (inclusive; core/list-filter.ts › messageIdBounds): a key range. */
    range?: { low?: string; high?: string };
  },
): Promise<MessagePage> {
  const filters = [
    ...(opts.direction ? ['direction = :d'] : []),
    ...(opts.status ? ['#status = :s'] : []),
    ...(opts.withHeld ? [] : ['attribute_not_exists(held)']),
  ];
  const data: MessageRecord[] = [];
  let startKey: Record<string, unknown> | undefined = opts.cursor
    ? { pk: `I#${identityId}`, sk: `${MESSAGE_SK_PREFIX}${opts.cursor}` }
    : undefined;
  let exhausted = false;
  while (data.length < opts.limit && !exhausted) {
    const out = await db.query({
      TableName: db.table,
      KeyConditionExpression: opts.range
        ? 'pk = :pk AND sk BETWEEN :m AND :high'
        : 'pk = :pk AND begins_with(sk, :m)',
      ExpressionAttributeValues: {
        ':pk': `I#${identityId}`,
        ':m': `${MESSAGE_SK_PREFIX}${opts.range?.low ?? ''}`,
        ...(opts.range ? { ':high': `${MESSAGE_SK_PREFIX}${opts.range.high ?? '~'}` } : {}),
        ...(opts.direction ? { ':d': opts.direction } : {}),
        ...(opts.status ? { ':s': opts.status } : {}),
      },
      ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
      ...(opts.status ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
      ScanIndexForward: false,
      Limit: opts.limit - data.length + 1,
      ExclusiveStartKey: startKey,
    });
    for (const item of out.Items ?? []) data.push(fromItem(item)!);
    startKey = out.LastEvaluatedKey;
    exhausted = !startKey;
  }
  const page = data.slice(0, opts.limit);
  const more = data.length > opts.limit || !exhausted;
  return { data: page, next_cursor: more && page.length > 0 ? page[page.length - 1].id : null };
}

/**
 * The identity's messages after feed position `after` (core/follow.ts), in commit order: the
 * identity's feed read from there (store/feed.store.ts › readFeed, `now` sealing gaps older than
 * FEED_SEAL_AFTER_MS), filtered by direction and thread on the slots, then the messages in one
 * consistent BatchGetItem. `position` is where the next read starts; `more`: another message
 * follows the page. A slot whose message is gone is passed over.
 */
export async function listMessagesAfter(
  db: Db,
  identityId: string,
  opts: {
    after: number;
    direction?: 'inbound' | 'outbound';
    threadId?: string;
    limit: number;
    now: number;
  },
): Promise<{ data: MessageRecord[]; position: number; more: boolean }> {
  const page = await readFeed(db, identityFeed(identityId), {
    ...opts,
    match: (names) =>
      (!opts.direction || names.direction === opts.direction) &&
      (!opts.threadId || names.thread_id === opts.threadId),
  });
  const reads = batchedReads(db);
  const found = await Promise.all(
    page.slots.map((slot) => getMessage(reads, identityId, String(slot.names.message_id), true)),
  );
  return {
    data: found.filter((m): m is MessageRecord => m !== undefined),
    position: page.position,
    more: page.more,
  };
}

export type ProviderIdMatch =
  | { type: 'none' }
  | { type: 'one'; identity_id: string; message_id: string }
  /** Two messages hold the id: routing must not pick one; the caller applies nothing. */
  | { type: 'ambiguous' };

/** The message a live provider's id names (gsi1): none, exactly one, or ambiguous. */
export async function findByProviderId(db: Db, providerMessageId: string): Promise<ProviderIdMatch> {
  const out = await db.query({
    TableName: db.table,
    IndexName: PROVIDER_INDEX,
    KeyConditionExpression: 'gsi1pk = :p',
    ExpressionAttributeValues: { ':p': `P#${providerMessageId}` },
    Limit: 2,
  });
  const items = out.Items ?? [];
  if (items.length === 0) return { type: 'none' };
  if (items.length > 1) return { type: 'ambiguous' };
  return {
    type: 'one',
    identity_id: String(items[0].pk).slice(2),
    message_id: String(items[0].sk).slice(MESSAGE_SK_PREFIX.length),
  };
}

/** The identity's uncertain messages without a provider id (gsi2), newest first, at most `limit`. */
export async function listUncertain(db: Db, identityId: string, limit = 50): Promise<MessageRecord[]> {
  return listByIndexPrefix(db, identityId, 'U', limit);
}

/** The identity's Cloudflare REST sends still without Cloudflare's messageId (gsi2), newest first. */
export async function listCfPending(db: Db, identityId: string, limit = 50): Promise<MessageRecord[]> {
  return listByIndexPrefix(db, identityId, 'C', limit);
}

async function listByIndexPrefix(
  db: Db,
  identityId: string,
  prefix: 'U' | 'C',
  limit: number,
): Promise<MessageRecord[]> {
  const out = await db.query({
    TableName: db.table,
    IndexName: UNCERTAIN_INDEX,
    KeyConditionExpression: 'gsi2pk = :u',
    ExpressionAttributeValues: { ':u': `${prefix}#${identityId}` },
    ScanIndexForward: false,
    Limit: limit,
  });
  const found = await Promise.all(
    (out.Items ?? []).map((i) =>
      getMessage(db, identityId, String(i.sk).slice(MESSAGE_SK_PREFIX.length), true),
    ),
  );
  return found.filter((m): m is MessageRecord => !!m);
}
