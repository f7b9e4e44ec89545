import { appendHtml, type ComposeInput, composePlan, htmlToText, type Operation } from '../core/compose.ts';
import { messageTooLarge } from '../core/errors.ts';
import { isHeld } from '../core/hold.ts';
import { isId } from '../core/ids.ts';
import { MAX_MIME_BYTES } from '../core/limits.ts';
import { attachmentLink, type LinkCandidate, linkBlobMetadata, planLinks } from '../core/links.ts';
import type { Identity, Mailbox, MessageRecord, Tenant, ThreadItem } from '../core/model.ts';
import type { Recipient } from '../core/recipients.ts';
import type { SendCommand } from '../core/send-command.ts';
import {
  decideSubmit,
  emptyLoads,
  type ForwardedContent,
  identityAddressList,
  type Loaded,
  likelyFromDomain,
  namedRecipients,
  type SubmitReads,
  type SubmitSnapshot,
  threadOf,
} from '../core/submit-pipeline.ts';
import { type ContactCounts, canonicalAddress, type FilterDecision } from '../core/suppressions.ts';
import type { Deps } from '../deps.ts';
import { batchedReads } from '../store/batch-reads.ts';
import { getContacts } from '../store/contacts.store.ts';
import type { Db } from '../store/db.ts';
import { getAddresses, getDomain } from '../store/directory.store.ts';
import { getMessage } from '../store/messages.store.ts';
import { getSendListMatches } from '../store/send-lists.store.ts';
import { getSuppressionsFor } from '../store/suppressions.store.ts';
import { getThread } from '../store/threads.store.ts';
import { buildMime } from './mime.ts';

export { referencesFor } from '../core/submit-pipeline.ts';

/** The ports the pipeline's loads and the composition take. */
export type PreparePorts = Pick<Deps, 'db' | 'blobs' | 'clock' | 'newId' | 'config'>;

export interface LoadInput {
  /**
   * How to read the identity's tenant, given the loader's batched reads: the tenant's item is read
   * in the round trip of the pipeline's first reads (one BatchGetItem with them).
   */
  tenant: (db: Db) => Promise<Tenant>;
  identity: Identity;
  operation: Operation;
  /** reply, reply_all, forward: the message answered or forwarded. */
  targetMessageId?: string;
  body: SendCommand;
}

/** The snapshot as first loaded: everything but the new message's id, which the reservation mints. */
export type LoadedSubmit = Omit<SubmitSnapshot, 'ulid'>;

/** Everything the policy pipeline decided (checks 1–17), ready to be stored or reported by a dry run. */
export interface Prepared {
  messageId: string;
  threadId: string;
  /** A reply, reply-all, forward or a send with thread_id: takes the thread lock. */
  threaded: boolean;
  target?: MessageRecord;
  thread?: ThreadItem;
  /** The thread's chain already holds this message (an earlier owner of its key wrote the thread). */
  ownInChain?: boolean;
  recipients: Recipient[];
  decisions: (FilterDecision & { address: string })[];
  from: Mailbox;
  replyTo?: Mailbox;
  subject: string;
  hop: number;
  autoStreak: number;
  compose: Omit<ComposeInput, 'inReplyTo' | 'references'>;
  inReplyTo?: string;
  references?: string[];
  mime: Buffer;
  /** Attachments replaced by signed links (large_attachments: "link"): stored before the commit. */
  links: { key: string; bytes: Buffer; metadata: Record<string, string>; contentType: string }[];
  /** Quotas and policy the storage step needs. */
  caps: { tenant: number; identity: number };
  /** The recipients' contacts as read at check 16 (by canonical address): who is already known. */
  contacts: Map<string, ContactCounts>;
  /** Held `undispatched` (checks 14–15 under `unconfigured_transport: "hold"`). */
  undispatched?: boolean;
}

/**
 * The policy pipeline, checks 1–17: read → decide → compose. The loads are gathered
 * into a snapshot (`loadSubmit`: the target and thread root first, then the tenant and everything
 * the request lets us name in one round trip — started beside the key's reservation, as it needs no
 * message id); `decideSubmit` (core/submit-pipeline.ts) runs every check in the table's order on
 * it and either throws the first refusal, names the reads it still needs (read in one round trip,
 * then it decides again), or decides. Then the MIME is composed and fitted. Nothing is written.
 */
export async function prepareSubmit(
  deps: PreparePorts,
  loaded: LoadedSubmit,
  ulid: string,
): Promise<Prepared> {
  let snapshot: SubmitSnapshot = { ...loaded, ulid };
  let outcome = decideSubmit(snapshot);
  for (let round = 0; outcome.type === 'need'; round++) {
    // Each round answers a need the pipeline named, and it names each read once: three at most.
    if (round >= 4) throw new Error('the submit pipeline asked for reads it had');
    snapshot = await loadInto(deps, snapshot, outcome.reads);
    outcome = decideSubmit(snapshot);
  }
  const d = outcome.decision;
  const { tenant, identity } = loaded;
  const {
    mime,
    compose: fitted,
    links,
  } = await fitSize(deps, d.compose, d.inReplyTo, d.references, {
    link: d.linkLargeAttachments,
    ref: { tenantId: tenant.id, identityId: identity.id, messageId: d.messageId },
  });
  return {
    messageId: d.messageId,
    threadId: d.threadId,
    threaded: d.threaded,
    target: d.target,
    thread: d.thread,
    recipients: d.recipients,
    decisions: d.decisions,
    from: d.from,
    replyTo: d.replyTo,
    subject: composePlan({ ...fitted, inReplyTo: d.inReplyTo, references: d.references }).subject,
    hop: d.hop,
    autoStreak: d.autoStreak,
    compose: fitted,
    links,
    inReplyTo: d.inReplyTo,
    references: d.references.length ? d.references : undefined,
    mime,
    contacts: d.contacts,
    ...(d.undispatched ? { undispatched: true } : {}),
    caps: d.caps,
  };
}

/**
 * The snapshot's first two round trips, none of which needs the message id: the message answered
 * (or the thread's root), then the tenant and what the request already names — the thread, the
 * identity's addresses, the likely From's domain, the recipients' filters (a send or forward names
 * them), the replied message's Reply-To contacts, a forward's original. The pipeline asks for
 * anything else (the test-mode directory among it: the tenant's mode is known once this is read).
 */
export async function loadSubmit(deps: PreparePorts, input: LoadInput): Promise<LoadedSubmit> {
  const { identity, operation, body } = input;
  const threadIdRequested = operation === 'send' ? body.thread_id : undefined;
  const [target, threadRoot] = await Promise.all([
    input.targetMessageId ? loadMessage(deps, identity.id, input.targetMessageId) : undefined,
    threadIdRequested ? loadThreadRoot(deps, identity.id, threadIdRequested) : undefined,
  ]);
  const { tenant: readTenant, ...rest } = input;
  const snapshot = {
    ...rest,
    now: deps.clock(),
    hashKey: deps.config.hashKey,
    target,
    threadRoot,
    ...emptyLoads(),
  };
  // The tenant's read and this round's are sent together (one BatchGetItem).
  const db = batchedReads(deps.db);
  if ((input.targetMessageId && !target) || (threadIdRequested && !threadRoot))
    return { ...snapshot, tenant: await readTenant(db) };
  // A threaded send's thread id comes from its target or body, never from the message id (not minted yet).
  const { threadId, threaded } = threadOf({ ...snapshot, ulid: '' });
  const named = namedRecipients(operation, body) ?? [];
  const [tenant, loaded] = await Promise.all([
    readTenant(db),
    loadInto(
      deps,
      snapshot,
      {
        ...(threaded ? { thread: threadId } : {}),
        addresses: identityAddressList(identity),
        domains: [likelyFromDomain(identity, body)],
        ...(named.length ? { filters: named } : {}),
        ...((operation === 'reply' || operation === 'reply_all') && target?.reply_to.length
          ? { contacts: target.reply_to.map((r) => r.address) }
          : {}),
        ...(operation === 'forward' && target ? { forwarded: true } : {}),
      },
      db,
    ),
  ]);
  return { ...loaded, tenant };
}

/** The snapshot's fields a round reads into (the tenant's own items are keyed by the identity's tenant). */
type Loadable = Omit<SubmitSnapshot, 'ulid' | 'tenant'>;

/** One round trip: every read named, at once, merged into a new snapshot. */
async function loadInto<S extends Loadable>(
  deps: PreparePorts,
  s: S,
  reads: SubmitReads,
  // One BatchGetItem for the round (its consistent reads, the thread's, in a second one).
  db: Db = batchedReads(deps.db),
): Promise<S> {
  const { identity } = s;
  const contactAddrs = [
    ...new Set([...(reads.contacts ?? []), ...(reads.filters ?? [])].map(canonicalAddress)),
  ];
  const filterAddrs = reads.filters ?? [];
  const [thread, addresses, domains, directory, contacts, suppressions, lists, forwarded] = await Promise.all(
    [
      reads.thread ? getThread(db, identity.id, reads.thread) : undefined,
      reads.addresses ? getAddresses(db, reads.addresses) : undefined,
      Promise.all((reads.domains ?? []).map((d) => getDomain(db, d))),
      reads.directory?.length ? getAddresses(db, reads.directory) : undefined,
      contactAddrs.length ? getContacts(db, identity.id, contactAddrs) : undefined,
      filterAddrs.length
        ? getSuppressionsFor(db, identity.tenant_id, deps.config.hashKey, filterAddrs)
        : undefined,
      filterAddrs.length ? getSendListMatches(db, identity.tenant_id, filterAddrs) : undefined,
      reads.forwarded && s.target ? loadForwarded(deps, s.target) : undefined,
    ],
  );
  const merge = <V>(l: Loaded<V>, keys: string[], found?: Map<string, V>): Loaded<V> =>
    keys.length ? { read: new Set([...l.read, ...keys]), found: new Map([...l.found, ...(found ?? [])]) } : l;
  const domainsRead = reads.domains ?? [];
  return {
    ...s,
    ...(reads.thread ? { thread: thread ?? null } : {}),
    ...(addresses ? { addresses } : {}),
    domains: merge(
      s.domains,
      domainsRead,
      new Map(domains.flatMap((d, i) => (d ? [[domainsRead[i], d] as const] : []))),
    ),
    directory: merge(s.directory, reads.directory ?? [], directory),
    contacts: merge(s.contacts, contactAddrs, contacts),
    filters: filterAddrs.length
      ? {
          read: new Set([...s.filters.read, ...filterAddrs.map(canonicalAddress)]),
          suppressions: new Map([...s.filters.suppressions, ...(suppressions ?? [])]),
          block: new Set([...s.filters.block, ...(lists?.block ?? [])]),
          allow: new Set([...s.filters.allow, ...(lists?.allow ?? [])]),
        }
      : s.filters,
    ...(reads.forwarded ? { forwarded: forwarded ?? { attachments: [] } } : {}),
  };
}

/**
 * Check 17 with signed links: while the message is too large and
 * the tenant allows links, the largest attachments are stored apart and replaced in the body by an
 * expiring signed link; without links, or when nothing is left to link, 413 message_too_large.
 */
async function fitSize(
  deps: PreparePorts,
  compose: Prepared['compose'],
  inReplyTo: string | undefined,
  references: string[],
  opts: { link: boolean; ref: { tenantId: string; identityId: string; messageId: string } },
): Promise<{ mime: Buffer; compose: Prepared['compose']; links: Prepared['links'] }> {
  const all = compose.attachments ?? [];
  const decoded = all.map((a) => Buffer.from(a.content_base64, 'base64'));
  const candidates: LinkCandidate[] = all.map((a, i) => ({
    filename: a.filename,
    content_type: a.content_type,
    size: decoded[i].length,
  }));
  const linked: { index: number; link: ReturnType<typeof attachmentLink> }[] = [];
  // The text part is derived before link lines are added, so the text keeps the URLs.
  const baseText = compose.text ?? (compose.html !== undefined ? htmlToText(compose.html) : undefined);
  let current = compose;
  for (;;) {
    const mime = await buildMime(composePlan({ ...current, inReplyTo, references }));
    if (mime.length <= MAX_MIME_BYTES) {
      const links = linked.map(({ index, link }) => ({
        key: link.key,
        bytes: decoded[index],
        metadata: linkBlobMetadata(all[index].filename, all[index].content_type),
        contentType: all[index].content_type,
      }));
      return { mime, compose: current, links };
    }
    const pick = opts.link ? planLinks(candidates, { overBy: mime.length - MAX_MIME_BYTES }) : [];
    if (pick.length === 0) {
      throw messageTooLarge(mime.length, MAX_MIME_BYTES);
    }
    for (const index of pick) {
      candidates[index].linked = true;
      linked.push({
        index,
        link: attachmentLink(deps.config, { ...opts.ref, attachmentId: `att_${deps.newId()}` }, compose.now, {
          filename: all[index].filename,
          size: decoded[index].length,
        }),
      });
    }
    const ordered = [...linked].sort((a, b) => a.index - b.index);
    const lines = ordered.map((l) => l.link.text).join('\n');
    current = {
      ...compose,
      text: [baseText, lines].filter(Boolean).join('\n\n'),
      html:
        compose.html === undefined
          ? undefined
          : appendHtml(compose.html, `<p>${ordered.map((l) => l.link.html).join('<br>')}</p>`),
      attachments: all.filter((_, i) => !candidates[i].linked),
    };
  }
}

/** Compose to MIME and enforce the size limit (check 17). */
export async function composeMime(
  compose: Prepared['compose'],
  inReplyTo: string | undefined,
  references: string[],
): Promise<Buffer> {
  const mime = await buildMime(composePlan({ ...compose, inReplyTo, references }));
  if (mime.length > MAX_MIME_BYTES) {
    throw messageTooLarge(mime.length, MAX_MIME_BYTES);
  }
  return mime;
}

async function loadMessage(
  deps: PreparePorts,
  identityId: string,
  messageId: string,
): Promise<MessageRecord | undefined> {
  if (!isId('message', messageId)) return undefined;
  const m = await getMessage(deps.db, identityId, messageId, true);
  // Held mail is answered or forwarded by no one until it is released (core/hold.ts).
  return m && !isHeld(m) ? m : undefined;
}

/** Thread ids are `thr_{ulid}` of their first message, so a thread exists when that message does. */
async function loadThreadRoot(
  deps: PreparePorts,
  identityId: string,
  threadId: string,
): Promise<MessageRecord | undefined> {
  if (!isId('thread', threadId)) return undefined;
  const root = await getMessage(deps.db, identityId, `msg_${threadId.slice(4)}`, true);
  return root?.thread_id === threadId && !isHeld(root) ? root : undefined;
}

/** A forwarded message's body and attachments, parsed from its stored MIME (missing: empty). */
async function loadForwarded(deps: PreparePorts, original: MessageRecord): Promise<ForwardedContent> {
  const raw = await deps.blobs.get(original.raw_key);
  // mailparser (with libmime's charset tables) loads on the first forward of a container only.
  const parsed = raw ? await (await import('mailparser')).simpleParser(Buffer.from(raw.body)) : undefined;
  return {
    text: parsed?.text ?? undefined,
    html: typeof parsed?.html === 'string' ? parsed.html : undefined,
    attachments: (parsed?.attachments ?? []).map((a) => ({
      filename: a.filename ?? 'attachment',
      content_type: a.contentType,
      content_base64: a.content.toString('base64'),
      disposition: a.contentDisposition === 'inline' && a.cid ? ('inline' as const) : ('attachment' as const),
      ...(a.contentDisposition === 'inline' && a.cid ? { content_id: a.cid } : {}),
    })),
  };
}
