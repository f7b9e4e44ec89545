import { createHmac } from 'node:crypto';
import { simpleParser } from 'mailparser';
import {
  type AttachmentInput,
  appendHtml,
  type ComposeInput,
  checkContent,
  composePlan,
  htmlToText,
  rfcMessageIdFor,
  serviceHeaderCount,
} from '../core/compose.ts';
import { transportGap } from '../core/domains.ts';
import { PmailError } from '../core/errors.ts';
import { validateCustomHeaders } from '../core/headers.ts';
import { isId } from '../core/ids.ts';
import { consentKindOf } from '../core/job-kind.ts';
import { MAX_MIME_BYTES } from '../core/limits.ts';
import { attachmentLink, type LinkCandidate, linkBlobMetadata, planLinks } from '../core/links.ts';
import type { AddressRecord, DomainRecord, Identity, Mailbox, MessageRecord, Tenant } from '../core/model.ts';
import { checkSender } from '../core/policy.ts';
import {
  baseAddress,
  checkRecipientCount,
  domainOf,
  normaliseAddress,
  normaliseRecipients,
  type Recipient,
} from '../core/recipients.ts';
import {
  DEFAULT_MAX_AUTOMATIC_EXCHANGES,
  replyAllRecipients,
  replyRecipients,
  replyTarget,
  threadReferences,
} from '../core/reply.ts';
import type { SendCommand } from '../core/send-command.ts';
import { isSimulatorAddress } from '../core/simulator.ts';
import { type ContactCounts, type FilterDecision, filterRecipients } from '../core/suppressions.ts';
import type { Deps } from '../deps.ts';
import { getContacts } from '../store/contacts.store.ts';
import { getAddresses, getDomain } from '../store/directory.store.ts';
import { getMessage } from '../store/messages.store.ts';
import { getSendListMatches } from '../store/send-lists.store.ts';
import { getSuppressionsFor } from '../store/suppressions.store.ts';
import { getThread, type ThreadItem } from '../store/threads.store.ts';
import { buildMime } from './mime.ts';

export type Operation = 'send' | 'reply' | 'reply_all' | 'forward';

export interface PrepareInput {
  tenant: Tenant;
  identity: Identity;
  operation: Operation;
  /** reply, reply_all, forward: the message answered or forwarded. */
  targetMessageId?: string;
  body: SendCommand;
  /** The new message's ULID (its id is `msg_{ulid}`). */
  ulid: string;
}

/** Everything the policy pipeline decided (steps 1–17), ready to be stored or reported by a dry run. */
export interface Prepared {
  messageId: string;
  threadId: string;
  /** A reply, reply-all, forward or a send with thread_id: takes the thread lock (C4). */
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
  /** The recipients' contacts as read at step 16 (by canonical address): who is already known. */
  contacts: Map<string, ContactCounts>;
  /** seed 002: held `undispatched` (steps 14–15 under `unconfigured_transport: "hold"`). */
  undispatched?: boolean;
}

/**
 * The policy pipeline of DESIGN § 8, steps 1–17, in order: the first failure throws its error and
 * nothing has been written. Loads run in parallel where they do not depend on an earlier step; the
 * checks that use them still run in the table's order.
 */
export async function prepareSubmit(deps: Deps, input: PrepareInput): Promise<Prepared> {
  const { tenant, identity, operation, body } = input;
  const now = deps.clock();
  const messageId = `msg_${input.ulid}`;
  const policy = tenant.policy ?? {};

  // Loads that need only the request.
  const threadIdRequested = operation === 'send' ? body.thread_id : undefined;
  const [target, threadRoot] = await Promise.all([
    input.targetMessageId ? loadMessage(deps, identity.id, input.targetMessageId) : undefined,
    threadIdRequested ? loadThreadRoot(deps, identity.id, threadIdRequested) : undefined,
  ]);

  // 1–4: identity and tenant status, accountable owner.
  checkSender(tenant, identity);

  // 5: the target message, the thread.
  if (input.targetMessageId && !target) {
    throw new PmailError('message_not_found', 'No message with this id in this identity.');
  }
  if (threadIdRequested && !threadRoot)
    throw new PmailError('thread_not_found', 'No thread with this id in this identity.');
  const threadId = target?.thread_id ?? threadIdRequested ?? `thr_${input.ulid}`;
  const threaded = !!(target || threadIdRequested);
  // The sending domain is read with them, for the From the send most likely has (step 13 decides;
  // another From's domain is read then).
  const likelyDomain = domainOf(body.from_address ?? identity.primary_address);
  // A send or forward names its recipients in the body: their filter items (step 16) are read in
  // the same round trip (a settled promise, so a check that refuses first leaves nothing pending).
  const named = operation === 'send' || operation === 'forward' ? namedRecipients(body) : undefined;
  const prefetchedFilters = named?.length
    ? recipientFilters(deps, tenant, identity, named).then(
        (v) => ({ ok: true as const, v }),
        (e: unknown) => ({ ok: false as const, e }),
      )
    : undefined;
  const [thread, identityAddresses, prefetchedDomain] = await Promise.all([
    threaded ? getThread(deps.db, identity.id, threadId) : undefined,
    getAddresses(deps.db, identity.addresses ?? [identity.primary_address]),
    getDomain(deps.db, likelyDomain),
  ]);

  // 6: recipients.
  let recipients: Recipient[];
  if (operation === 'reply' || operation === 'reply_all') {
    const m = target!;
    const replyToContacts = m.reply_to.length
      ? await getContacts(
          deps.db,
          identity.id,
          m.reply_to.map((r) => r.address),
        )
      : new Map();
    const to = replyTarget(
      { from: m.from, replyTo: m.reply_to, to: m.to, cc: m.cc },
      {
        knownSender: m.flags.includes('known_sender'),
        contactsWithOutbound: [...replyToContacts].filter(([, c]) => c.outbound_count > 0).map(([a]) => a),
      },
    );
    const picked =
      operation === 'reply_all'
        ? replyAllRecipients(
            { from: m.from, replyTo: m.reply_to, to: m.to, cc: m.cc },
            { identityAddresses: [...identityAddresses.keys(), ...(identity.addresses ?? [])], target: to },
          )
        : replyRecipients({ from: m.from, to: m.to, cc: m.cc }, { direction: m.direction, target: to });
    recipients = normaliseRecipients({ to: picked.to, cc: picked.cc });
  } else {
    recipients = normaliseRecipients({ to: body.to, cc: body.cc, bcc: body.bcc });
  }

  // 7: count.
  checkRecipientCount(recipients, policy.max_recipients);

  // 8: a test tenant sends only to the simulator and to addresses of this deployment.
  if (tenant.mode === 'test') {
    const outside = recipients.filter((r) => !isSimulatorAddress(r.address));
    const directory = await getAddresses(
      deps.db,
      outside.map((r) => baseAddress(r.address)),
    );
    const refused = outside.filter((r) => {
      const rec = directory.get(baseAddress(r.address).toLowerCase());
      return !rec || rec.status === 'retired';
    });
    if (refused.length > 0) {
      throw new PmailError(
        'test_mode_recipient',
        'A test tenant can send only to @simulator.invalid and to addresses of identities on this deployment.',
        { details: { fields: refused.map((r) => r.field) } },
      );
    }
  }

  // 9: marketing needs an HTTPS one-click unsubscribe URL and the consent it relies on.
  if (body.kind === 'marketing') {
    const url = body.unsubscribe?.url;
    let https = false;
    try {
      https = !!url && new URL(url).protocol === 'https:';
    } catch {
      https = false;
    }
    if (!https || !body.consent) {
      throw new PmailError(
        'marketing_requirements_missing',
        'A marketing send needs unsubscribe.url (HTTPS) and consent.',
        {
          details: { missing: [!https && 'unsubscribe.url', !body.consent && 'consent'].filter(Boolean) },
        },
      );
    }
  }

  // 10: automatic replies (D6).
  const isAuto = body.kind === 'auto_reply';
  const streak = thread?.auto_streak ?? 0;
  if (isAuto) {
    const max = policy.auto_reply?.max_automatic_exchanges ?? DEFAULT_MAX_AUTOMATIC_EXCHANGES;
    const reason =
      operation !== 'reply' && operation !== 'reply_all'
        ? 'not_a_reply'
        : target!.kind === 'auto_reply' || target!.flags.includes('automated')
          ? 'replying_to_automated_mail'
          : policy.auto_reply?.enabled === false
            ? 'disabled_by_policy'
            : streak >= max
              ? 'exchange_cap_reached'
              : undefined;
    if (reason) {
      throw new PmailError('auto_reply_not_allowed', 'This automatic reply is not allowed.', {
        details: { reason, ...(reason === 'exchange_cap_reached' ? { max_automatic_exchanges: max } : {}) },
      });
    }
  }

  // Threading facts the headers depend on.
  const hop = target ? (target.hop ?? 1) + 1 : 1;
  const refs = referencesFor(thread, target);
  const inReplyTo = target?.rfc_message_id ?? (refs.length ? refs[refs.length - 1] : undefined);
  const marketing =
    body.kind === 'marketing' ? { url: body.unsubscribe!.url, mailto: body.unsubscribe!.mailto } : undefined;
  const disclosure = policy.ai_disclosure;

  // 11: custom headers.
  const customHeaders = validateCustomHeaders(
    body.headers,
    serviceHeaderCount({ hop, inReplyTo, references: refs, autoReply: isAuto, disclosure, marketing }),
  );

  // 12: content.
  checkContent({
    text: body.text,
    html: body.html,
    subject: body.subject,
    attachments: body.attachments,
    labels: body.labels,
    metadata: body.metadata,
  });

  // 13: From.
  const from = chooseFrom(identity, identityAddresses, body.from_address, { threaded, thread, target });

  // 14–15: the sending domain is ready and has a transport.
  const domain =
    domainOf(from.address) === likelyDomain
      ? prefetchedDomain
      : await getDomain(deps.db, domainOf(from.address));
  const undispatched = checkDomain(tenant, domain, body.kind === 'marketing');

  // 16: recipient filters (suppressions, send-block, allowlist-only, require-known-recipient).
  const addrs = recipients.map((r) => r.address);
  const early = prefetchedFilters && sameList(named!, addrs) ? await prefetchedFilters : undefined;
  if (early && !early.ok) throw early.e;
  const [suppressions, lists, contacts] = early?.ok
    ? early.v
    : await recipientFilters(deps, tenant, identity, addrs);
  const decisions = filterRecipients(recipients, {
    now,
    // seed 002: the kind through the one accessor the send's re-check also reads.
    elective: consentKindOf(body) === 'elective',
    allowlistOnly: policy.send_allowlist_only === true,
    requireKnownRecipient: identity.send_policy?.require_known_recipient === true,
    suppressions,
    sendBlock: lists.block,
    sendAllow: lists.allow,
    contacts,
  });

  // 17: composition, in memory, and its size.
  const subject = operation === 'send' ? (body.subject ?? '') : target!.subject;
  const forwarded =
    operation === 'forward'
      ? await loadForwarded(deps, target!, body.include_attachments !== false)
      : undefined;
  const replyTo = threadTokenReplyTo(deps, domain, from, identity.id, threadId);
  const compose: Prepared['compose'] = {
    rfcMessageId: rfcMessageIdFor(input.ulid, from.address),
    now,
    from,
    recipients,
    subject,
    text: body.text,
    html: body.html,
    attachments: body.attachments,
    hop,
    operation,
    replyTo,
    customHeaders,
    signature:
      identity.signature_text || identity.signature_html
        ? { text: identity.signature_text, html: identity.signature_html }
        : undefined,
    disclosure,
    marketing,
    autoReply: isAuto,
    forward: forwarded?.original,
    forwardAttachments: forwarded?.attachments,
  };
  const {
    mime,
    compose: fitted,
    links,
  } = await fitSize(deps, compose, inReplyTo, refs, {
    link: policy.large_attachments === 'link',
    ref: { tenantId: tenant.id, identityId: identity.id, messageId },
  });

  return {
    messageId,
    threadId,
    threaded,
    target,
    thread,
    recipients,
    decisions,
    from,
    replyTo,
    subject: composePlan({ ...fitted, inReplyTo, references: refs }).subject,
    hop,
    autoStreak: isAuto ? streak + 1 : 0,
    compose: fitted,
    links,
    inReplyTo,
    references: refs.length ? refs : undefined,
    mime,
    contacts,
    ...(undispatched ? { undispatched } : {}),
    caps: {
      tenant: policy.daily_send_cap ?? 10_000,
      identity: identity.send_policy?.daily_cap ?? policy.identity_daily_send_cap ?? 1_000,
    },
  };
}

/**
 * Step 17 with signed links (seed 000 › Attachments and size, P1): while the message is too large and
 * the tenant allows links, the largest attachments are stored apart and replaced in the body by an
 * expiring signed link; without links, or when nothing is left to link, 413 message_too_large.
 */
async function fitSize(
  deps: Deps,
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
      throw new PmailError('message_too_large', 'The composed message is larger than the transport limit.', {
        details: { size_bytes: mime.length, max_bytes: MAX_MIME_BYTES },
      });
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

/** Compose to MIME and enforce the size limit (step 17). */
export async function composeMime(
  compose: Prepared['compose'],
  inReplyTo: string | undefined,
  references: string[],
): Promise<Buffer> {
  const mime = await buildMime(composePlan({ ...compose, inReplyTo, references }));
  if (mime.length > MAX_MIME_BYTES) {
    throw new PmailError('message_too_large', 'The composed message is larger than the transport limit.', {
      details: { size_bytes: mime.length, max_bytes: MAX_MIME_BYTES },
    });
  }
  return mime;
}

/**
 * The References of a threaded message (C2): the thread's chain when it has one, else the answered
 * message's own chain; the answered message's id is always in it. Trimmed to 2,048 bytes.
 */
export function referencesFor(thread: ThreadItem | undefined, target: MessageRecord | undefined): string[] {
  const chain = thread?.refs.length ? thread.refs : (target?.references ?? []);
  if (!target) return chain;
  const withoutTarget = chain.filter((r) => r !== target.rfc_message_id);
  return threadReferences(withoutTarget, target.rfc_message_id, target.in_reply_to);
}

async function loadMessage(
  deps: Deps,
  identityId: string,
  messageId: string,
): Promise<MessageRecord | undefined> {
  if (!isId('message', messageId)) return undefined;
  return getMessage(deps.db, identityId, messageId, true);
}

/** Thread ids are `thr_{ulid}` of their first message, so a thread exists when that message does. */
async function loadThreadRoot(
  deps: Deps,
  identityId: string,
  threadId: string,
): Promise<MessageRecord | undefined> {
  if (!isId('thread', threadId)) return undefined;
  const root = await getMessage(deps.db, identityId, `msg_${threadId.slice(4)}`, true);
  return root?.thread_id === threadId ? root : undefined;
}

/**
 * Step 13 (FR-OUT-5, C3): a plain send uses from_address (an active address of the identity) or the
 * primary. On a thread, from_address may also be a retiring address the thread already uses;
 * without it the thread keeps its From, or a reply uses the address the counterparty wrote to.
 */
function chooseFrom(
  identity: Identity,
  addresses: Map<string, AddressRecord>,
  fromAddress: string | undefined,
  ctx: { threaded: boolean; thread?: ThreadItem; target?: MessageRecord },
): Mailbox {
  const name = identity.display_name;
  const mailbox = (address: string): Mailbox => (name ? { address, name } : { address });
  const own = (a: string | undefined) => {
    const rec = a ? addresses.get(a.toLowerCase()) : undefined;
    return rec && rec.identity_id === identity.id ? rec : undefined;
  };
  const usable = (rec: AddressRecord | undefined) =>
    !!rec &&
    (rec.status === 'active' ||
      (rec.status === 'retiring' && ctx.threaded && ctx.thread?.from_address?.toLowerCase() === rec.address));
  if (fromAddress) {
    const invalid = (message: string) =>
      new PmailError('invalid_request', message, {
        details: { errors: [{ path: 'from_address', message }] },
      });
    let normalised: string;
    try {
      normalised = normaliseAddress(fromAddress, 'from_address');
    } catch {
      throw invalid('from_address is not an email address');
    }
    const rec = own(normalised);
    if (!usable(rec)) throw invalid('from_address is not an active address of this identity');
    return mailbox(rec!.address);
  }
  if (ctx.threaded) {
    const threadFrom = own(ctx.thread?.from_address);
    if (usable(threadFrom)) return mailbox(threadFrom!.address);
    const m = ctx.target;
    if (m?.direction === 'inbound') {
      const wroteTo = [...m.to, ...m.cc, ...m.bcc]
        .map((r) => own(baseAddress(r.address)))
        .find((r) => r?.status === 'active');
      if (wroteTo) return mailbox(wroteTo.address);
    }
    if (m?.direction === 'outbound' && usable(own(m.from.address)))
      return mailbox(own(m.from.address)!.address);
  }
  return mailbox(identity.primary_address);
}

/**
 * Steps 14–15. A test tenant's mail goes to the simulator and loopback, which need no domain. Until
 * a live domain has a transport, a live send is a 422 rather than a message that can never leave —
 * or, under the tenant policy `unconfigured_transport: "hold"`, accepted `undispatched` (true).
 */
function checkDomain(tenant: Tenant, domain: DomainRecord | undefined, marketing: boolean): boolean {
  if (domain && (domain.state === 'pending' || domain.state === 'verifying')) {
    throw new PmailError('domain_not_ready', 'The sending domain is not verified yet.', {
      details: { domain: domain.domain, state: domain.state },
    });
  }
  if (tenant.mode === 'test') return false;
  const gap = transportGap(domain, marketing);
  if (!gap) return false;
  // seed 002 › undispatched: a configuration not completed yet is held when the tenant says so.
  if (gap.holdable && tenant.policy?.unconfigured_transport === 'hold') return true;
  throw new PmailError('transport_unavailable', 'The sending domain cannot send this message.', {
    details: { reason: gap.reason },
  });
}

/**
 * seed 000 › Reply-To and the thread token: on `reply_token = 'subaddress'` domains the Reply-To is
 * the From's local part + `+t{thread ulid}.{mac}`; the MAC (HMAC of identity and thread) lets inbound
 * routing trust the token. Skipped when the local part would pass 64 characters.
 */
function threadTokenReplyTo(
  deps: Deps,
  domain: DomainRecord | undefined,
  from: Mailbox,
  identityId: string,
  threadId: string,
): Mailbox | undefined {
  if (domain?.reply_token !== 'subaddress') return undefined;
  const at = from.address.lastIndexOf('@');
  const mac = createHmac('sha256', deps.config.hashKey)
    .update(`thread:${identityId}:${threadId}`)
    .digest('hex')
    .slice(0, 6);
  const local = `${from.address.slice(0, at)}+t${threadId.slice(4)}.${mac}`;
  if (local.length > 64) return undefined;
  return { address: `${local}${from.address.slice(at)}`, ...(from.name ? { name: from.name } : {}) };
}

/** Attachments a forward never re-attaches (executable or script content). */
const RISKY = /\.(exe|com|bat|cmd|scr|js|jse|vbs|vbe|wsf|msi|ps1|jar|hta|lnk)$/i;

async function loadForwarded(deps: Deps, original: MessageRecord, includeAttachments: boolean) {
  const raw = await deps.blobs.get(original.raw_key);
  const parsed = raw ? await simpleParser(Buffer.from(raw.body)) : undefined;
  const attachments: AttachmentInput[] =
    includeAttachments && parsed
      ? parsed.attachments
          .filter(
            (a) => !RISKY.test(a.filename ?? '') && !/javascript|x-msdownload|x-sh\b/i.test(a.contentType),
          )
          .map((a) => ({
            filename: a.filename ?? 'attachment',
            content_type: a.contentType,
            content_base64: a.content.toString('base64'),
            disposition:
              a.contentDisposition === 'inline' && a.cid ? ('inline' as const) : ('attachment' as const),
            ...(a.contentDisposition === 'inline' && a.cid ? { content_id: a.cid } : {}),
          }))
      : [];
  return {
    original: {
      from: original.from,
      date: original.created_at,
      subject: original.subject,
      to: original.to,
      cc: original.cc,
      text: parsed?.text ?? undefined,
      html: typeof parsed?.html === 'string' ? parsed.html : undefined,
    },
    attachments,
  };
}

/**
 * The items step 16 filters on: suppressions, send lists and the recipients' contacts (read by
 * require_known_recipient, and after the commit: a contact already known is not written again).
 */
function recipientFilters(deps: Deps, tenant: Tenant, identity: Identity, addrs: string[]) {
  return Promise.all([
    getSuppressionsFor(deps.db, tenant.id, deps.config.hashKey, addrs),
    getSendListMatches(deps.db, tenant.id, addrs),
    getContacts(deps.db, identity.id, addrs),
  ]);
}

/** The body's recipients as step 6 will normalise them; undefined when step 6 will refuse them. */
function namedRecipients(body: SendCommand): string[] | undefined {
  try {
    return normaliseRecipients({ to: body.to, cc: body.cc, bcc: body.bcc }).map((r) => r.address);
  } catch {
    return undefined;
  }
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
