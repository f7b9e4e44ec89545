import { createHmac } from 'node:crypto';
import {
  type AttachmentInput,
  type ComposeInput,
  checkContent,
  type Operation,
  rfcMessageIdFor,
  serviceHeaderCount,
} from './compose.ts';
import { transportGap } from './domains.ts';
import {
  autoReplyNotAllowed,
  domainNotReady,
  invalidField,
  marketingSendIncomplete,
  messageNotFound,
  PmailError,
  testModeRecipient,
  threadNotFound,
  transportUnavailable,
} from './errors.ts';
import { validateCustomHeaders } from './headers.ts';
import { consentKindOf } from './job-kind.ts';
import type {
  AddressRecord,
  DomainRecord,
  Identity,
  Mailbox,
  MessageRecord,
  Tenant,
  ThreadItem,
} from './model.ts';
import { checkSender } from './policy.ts';
import { DEFAULT_IDENTITY_DAILY_CAP, DEFAULT_TENANT_DAILY_CAP } from './quota.ts';
import {
  baseAddress,
  checkRecipientCount,
  domainOf,
  normaliseAddress,
  normaliseRecipients,
  type Recipient,
} from './recipients.ts';
import {
  DEFAULT_MAX_AUTOMATIC_EXCHANGES,
  replyAllRecipients,
  replyRecipients,
  replyTarget,
  threadReferences,
} from './reply.ts';
import type { SendCommand } from './send-command.ts';
import { isSimulatorAddress } from './simulator.ts';
import {
  type ContactCounts,
  canonicalAddress,
  type FilterDecision,
  filterRecipients,
  type Suppression,
} from './suppressions.ts';

/**
 * The submit pipeline (docs/architecture.md › The submit path): one pure function over a snapshot of what the
 * send module read: read → decide → write. `decideSubmit` runs every check in the table's order on
 * the snapshot and throws the first refusal (a PmailError); when a check needs an item the snapshot
 * does not hold yet (the From's domain when it is not the likely one, the test-mode directory, the
 * filters of a reply's recipients), it answers `need` with every read it can name at that point,
 * and the loader reads them in one round trip and asks again. Nothing here does I/O or reads a
 * clock: `now` and the hash key come in.
 */

/** Items read by key, and which keys were read (a key read and not found is absent from `found`). */
export interface Loaded<V> {
  read: ReadonlySet<string>;
  found: ReadonlyMap<string, V>;
}

/** A forwarded message's body, parsed from its stored MIME by the loader. */
export interface ForwardedContent {
  text?: string;
  html?: string;
  attachments: AttachmentInput[];
}

export interface SubmitSnapshot {
  tenant: Tenant;
  identity: Identity;
  operation: Operation;
  body: SendCommand;
  /** reply, reply_all, forward: the id of the message answered or forwarded. */
  targetMessageId?: string;
  /** The new message's ULID. */
  ulid: string;
  now: number;
  /** PM_HASH_KEY: the thread token's MAC. */
  hashKey: string;
  /** The message answered or forwarded (read first; absent: not found). */
  target?: MessageRecord;
  /** A send with thread_id: the thread's first message (absent: not found). */
  threadRoot?: MessageRecord;
  /** The thread item: undefined when not read, null when read and absent. */
  thread?: ThreadItem | null;
  /** The identity's address records, by lower-case address (undefined: not read). */
  addresses?: ReadonlyMap<string, AddressRecord>;
  /** Sending domains, by domain. */
  domains: Loaded<DomainRecord>;
  /** The directory of this deployment (a test tenant's recipients), by lower-case base address. */
  directory: Loaded<AddressRecord>;
  /** The identity's contacts, by canonical address. */
  contacts: Loaded<ContactCounts>;
  /** Suppressions and send-list matches, by canonical address (`read`) and entry (`block`, `allow`). */
  filters: {
    read: ReadonlySet<string>;
    suppressions: ReadonlyMap<string, Pick<Suppression, 'reason' | 'expires_at' | 'elective'>>;
    block: ReadonlySet<string>;
    allow: ReadonlySet<string>;
  };
  /** forward: the original's body (undefined: not read). */
  forwarded?: ForwardedContent;
}

/** What the loader reads next. Addresses as the keys above take them. */
export interface SubmitReads {
  thread?: string;
  addresses?: string[];
  domains?: string[];
  directory?: string[];
  contacts?: string[];
  /** Suppressions, send lists and contacts of these recipients (check 16). */
  filters?: string[];
  forwarded?: boolean;
}

/** Everything the pipeline decided: the storage step and the composition take it from here. */
export interface SubmitDecision {
  messageId: string;
  threadId: string;
  /** A reply, reply-all, forward or a send with thread_id: takes the thread lock. */
  threaded: boolean;
  target?: MessageRecord;
  thread?: ThreadItem;
  recipients: Recipient[];
  decisions: (FilterDecision & { address: string })[];
  from: Mailbox;
  replyTo?: Mailbox;
  hop: number;
  autoStreak: number;
  /** The composition, before References (the storage step may recompose against a moved chain). */
  compose: Omit<ComposeInput, 'inReplyTo' | 'references'>;
  inReplyTo?: string;
  references: string[];
  /** large_attachments: "link": attachments may be replaced by signed links to fit the size. */
  linkLargeAttachments: boolean;
  caps: { tenant: number; identity: number };
  /** The recipients' contacts as read (by canonical address): who is already known. */
  contacts: Map<string, ContactCounts>;
  /** Held `undispatched` (checks 14–15 under `unconfigured_transport: "hold"`). */
  undispatched?: boolean;
}

export type SubmitOutcome =
  | { type: 'need'; reads: SubmitReads }
  | { type: 'decided'; decision: SubmitDecision };

/** An empty snapshot's loaded sets. */
export function emptyLoads(): Pick<SubmitSnapshot, 'domains' | 'directory' | 'contacts' | 'filters'> {
  return {
    domains: { read: new Set(), found: new Map() },
    directory: { read: new Set(), found: new Map() },
    contacts: { read: new Set(), found: new Map() },
    filters: { read: new Set(), suppressions: new Map(), block: new Set(), allow: new Set() },
  };
}

/** The thread a request names or answers, and whether it is threaded (it takes the thread lock). */
export function threadOf(s: Pick<SubmitSnapshot, 'operation' | 'body' | 'ulid' | 'target'>): {
  threadId: string;
  threaded: boolean;
} {
  const requested = s.operation === 'send' ? s.body.thread_id : undefined;
  return {
    threadId: s.target?.thread_id ?? requested ?? `thr_${s.ulid}`,
    threaded: !!(s.target || requested),
  };
}

/** A send's likely From (from_address, else the primary): its domain is read with the first items. */
export function likelyFromDomain(identity: Identity, body: SendCommand): string {
  return domainOf(body.from_address ?? identity.primary_address);
}

/** The recipients a send or forward names in its body, as check 6 normalises them; undefined if refused. */
export function namedRecipients(operation: Operation, body: SendCommand): string[] | undefined {
  if (operation !== 'send' && operation !== 'forward') return undefined;
  try {
    return normaliseRecipients({ to: body.to, cc: body.cc, bcc: body.bcc }).map((r) => r.address);
  } catch {
    return undefined;
  }
}

/** The identity's own addresses, the keys of `addresses`. */
export const identityAddressList = (identity: Identity) => identity.addresses ?? [identity.primary_address];

/** Test mode (check 8): the recipients looked up in the directory (those outside the simulator). */
const outsideSimulator = (recipients: Recipient[]) =>
  recipients.filter((r) => !isSimulatorAddress(r.address));

/**
 * The send checks on the snapshot, in the order of docs/architecture.md › The submit path (step 3);
 * the first refusal throws, a read a later step needs is answered as `need`. See the file comment.
 */
export function decideSubmit(s: SubmitSnapshot): SubmitOutcome {
  const need = (reads: SubmitReads): SubmitOutcome => ({ type: 'need', reads });
  const policy = s.tenant.policy ?? {};

  checkSender(s.tenant, s.identity); // the sender (1–4)
  const { threadId, threaded } = checkTarget(s); // the target (5)
  const firstReads = firstReadsNeeded(s, threadId, threaded);
  if (firstReads) return need(firstReads);
  const thread = s.thread ?? undefined;
  const identityAddresses = s.addresses!;

  const recipients = pickRecipients(s, identityAddresses); // the recipients (6)
  checkRecipientCount(recipients, policy.max_recipients); // the count (7)
  const { directoryKeys, filterKeys } = recipientReadsNeeded(s, recipients);
  if (directoryKeys.length) {
    return need({ directory: directoryKeys, ...(filterKeys.length ? { filters: filterKeys } : {}) });
  }
  checkTestModeRecipients(s, recipients); // test mode (8)
  checkMarketing(s.body); // marketing (9)
  const autoStreak = checkAutoReply(s, thread); // automatic replies (10)

  const threading = threadingFacts(s, thread);
  const customHeaders = checkCustomHeaders(s, threading); // custom headers (11)
  checkBodyContent(s.body); // content (12)
  const from = chooseFrom(s.identity, identityAddresses, s.body.from_address, {
    threaded,
    thread,
    target: s.target,
  }); // the From (13)

  const lastReads = lastReadsNeeded(s, from, filterKeys);
  if (lastReads) return need(lastReads);
  const domain = s.domains.found.get(domainOf(from.address));
  const undispatched = checkSendingDomain(s.tenant, domain, s.body.kind === 'marketing'); // the sending domain (14–15)
  const { contacts, decisions } = recipientFilters(s, recipients); // the recipient filters (16)

  return {
    type: 'decided',
    decision: composeDecision(s, {
      threadId,
      threaded,
      thread,
      recipients,
      decisions,
      contacts,
      from,
      domain,
      threading,
      customHeaders,
      autoStreak,
      undispatched,
    }),
  }; // the composition (17)
}

/** The target (5): the message answered or forwarded, the thread a send names; the thread it joins. */
function checkTarget(s: SubmitSnapshot): { threadId: string; threaded: boolean } {
  if (s.targetMessageId && !s.target) {
    throw messageNotFound();
  }
  if (s.operation === 'send' && s.body.thread_id && !s.threadRoot) throw threadNotFound();
  return threadOf(s);
}

/** After the target: the thread, the identity's addresses, a replied message's Reply-To contacts. */
function firstReadsNeeded(s: SubmitSnapshot, threadId: string, threaded: boolean): SubmitReads | undefined {
  const reads: SubmitReads = {
    ...(threaded && s.thread === undefined ? { thread: threadId } : {}),
    ...(s.addresses === undefined ? { addresses: identityAddressList(s.identity) } : {}),
  };
  const replyToAddrs =
    s.target && (s.operation === 'reply' || s.operation === 'reply_all')
      ? s.target.reply_to.map((r) => canonicalAddress(r.address)).filter((a) => !s.contacts.read.has(a))
      : [];
  if (!reads.thread && !reads.addresses && !replyToAddrs.length) return undefined;
  return { ...reads, ...(replyToAddrs.length ? { contacts: replyToAddrs } : {}) };
}

/** The recipients (6): a reply's and a reply-all's picked from the answered message, else the body's. */
function pickRecipients(
  s: SubmitSnapshot,
  identityAddresses: ReadonlyMap<string, AddressRecord>,
): Recipient[] {
  const { operation, body, identity } = s;
  if (operation !== 'reply' && operation !== 'reply_all') {
    return normaliseRecipients({ to: body.to, cc: body.cc, bcc: body.bcc });
  }
  const m = s.target!;
  const to = replyTarget(
    { from: m.from, replyTo: m.reply_to, to: m.to, cc: m.cc },
    {
      knownSender: m.flags.includes('known_sender'),
      contactsWithOutbound: m.reply_to
        .map((r) => canonicalAddress(r.address))
        .filter((a) => (s.contacts.found.get(a)?.outbound_count ?? 0) > 0),
    },
  );
  const picked =
    operation === 'reply_all'
      ? replyAllRecipients(
          { from: m.from, replyTo: m.reply_to, to: m.to, cc: m.cc },
          { identityAddresses: [...identityAddresses.keys(), ...(identity.addresses ?? [])], target: to },
        )
      : replyRecipients({ from: m.from, to: m.to, cc: m.cc }, { direction: m.direction, target: to });
  return normaliseRecipients({ to: picked.to, cc: picked.cc });
}

/**
 * The reads that depend on the recipients, named together: the test-mode directory (8) and the
 * recipient filters (16).
 */
function recipientReadsNeeded(
  s: SubmitSnapshot,
  recipients: Recipient[],
): { directoryKeys: string[]; filterKeys: string[] } {
  const directoryKeys =
    s.tenant.mode === 'test'
      ? outsideSimulator(recipients)
          .map((r) => baseAddress(r.address).toLowerCase())
          .filter((a) => !s.directory.read.has(a))
      : [];
  const filterKeys = recipients
    .map((r) => canonicalAddress(r.address))
    .filter((a) => !s.filters.read.has(a) || !s.contacts.read.has(a));
  return { directoryKeys, filterKeys };
}

/** Test mode (8): a test tenant sends only to the simulator and to addresses of this deployment. */
function checkTestModeRecipients(s: SubmitSnapshot, recipients: Recipient[]): void {
  if (s.tenant.mode !== 'test') return;
  const refused = outsideSimulator(recipients).filter((r) => {
    const rec = s.directory.found.get(baseAddress(r.address).toLowerCase());
    return !rec || rec.status === 'retired';
  });
  if (refused.length > 0) {
    throw testModeRecipient(refused.map((r) => r.field));
  }
}

/** Marketing (9): an HTTPS one-click unsubscribe URL and the consent it relies on. */
function checkMarketing(body: SendCommand): void {
  if (body.kind !== 'marketing') return;
  const url = body.unsubscribe?.url;
  let https = false;
  try {
    https = !!url && new URL(url).protocol === 'https:';
  } catch {
    https = false;
  }
  if (!https || !body.consent) {
    throw marketingSendIncomplete(
      [!https && 'unsubscribe.url', !body.consent && 'consent'].filter((f) => f !== false),
    );
  }
}

/** Automatic replies (10): allowed or refused with its reason; the thread's streak after this send. */
function checkAutoReply(s: SubmitSnapshot, thread: ThreadItem | undefined): number {
  if (s.body.kind !== 'auto_reply') return 0;
  const policy = s.tenant.policy ?? {};
  const streak = thread?.auto_streak ?? 0;
  const max = policy.auto_reply?.max_automatic_exchanges ?? DEFAULT_MAX_AUTOMATIC_EXCHANGES;
  const reason =
    s.operation !== 'reply' && s.operation !== 'reply_all'
      ? 'not_a_reply'
      : s.target!.kind === 'auto_reply' || s.target!.flags.includes('automated')
        ? 'replying_to_automated_mail'
        : policy.auto_reply?.enabled === false
          ? 'disabled_by_policy'
          : streak >= max
            ? 'exchange_cap_reached'
            : undefined;
  if (reason) {
    throw autoReplyNotAllowed(reason, max);
  }
  return streak + 1;
}

/** Threading facts the headers depend on. */
interface Threading {
  hop: number;
  references: string[];
  inReplyTo?: string;
  marketing?: { url: string; mailto?: string };
}

function threadingFacts(s: SubmitSnapshot, thread: ThreadItem | undefined): Threading {
  const { target, body } = s;
  const references = referencesFor(thread, target);
  return {
    hop: target ? (target.hop ?? 1) + 1 : 1,
    references,
    inReplyTo: target?.rfc_message_id ?? (references.length ? references[references.length - 1] : undefined),
    marketing:
      body.kind === 'marketing'
        ? { url: body.unsubscribe!.url, mailto: body.unsubscribe!.mailto }
        : undefined,
  };
}

/** Custom headers (11), counted with the service headers this message gets. */
function checkCustomHeaders(s: SubmitSnapshot, t: Threading) {
  return validateCustomHeaders(
    s.body.headers,
    serviceHeaderCount({
      hop: t.hop,
      inReplyTo: t.inReplyTo,
      references: t.references,
      autoReply: s.body.kind === 'auto_reply',
      disclosure: s.tenant.policy?.ai_disclosure,
      marketing: t.marketing,
    }),
  );
}

/** Content (12). */
function checkBodyContent(body: SendCommand): void {
  checkContent({
    text: body.text,
    html: body.html,
    subject: body.subject,
    attachments: body.attachments,
    labels: body.labels,
    metadata: body.metadata,
  });
}

/** Before the sending domain (14–15), the reads still missing, named together: the From's domain,
 * the recipients' filters, a forward's original. */
function lastReadsNeeded(s: SubmitSnapshot, from: Mailbox, filterKeys: string[]): SubmitReads | undefined {
  const fromDomain = domainOf(from.address);
  const forwardNeeded = s.operation === 'forward' && s.forwarded === undefined;
  if (s.domains.read.has(fromDomain) && !filterKeys.length && !forwardNeeded) return undefined;
  return {
    ...(s.domains.read.has(fromDomain) ? {} : { domains: [fromDomain] }),
    ...(filterKeys.length ? { filters: filterKeys } : {}),
    ...(forwardNeeded ? { forwarded: true } : {}),
  };
}

/** The recipient filters (16): suppressions, send-block, allowlist-only, require-known-recipient. */
function recipientFilters(
  s: SubmitSnapshot,
  recipients: Recipient[],
): { contacts: Map<string, ContactCounts>; decisions: SubmitDecision['decisions'] } {
  const policy = s.tenant.policy ?? {};
  const contacts = new Map(
    recipients.flatMap((r) => {
      const c = s.contacts.found.get(canonicalAddress(r.address));
      return c ? [[canonicalAddress(r.address), c] as const] : [];
    }),
  );
  const decisions = filterRecipients(recipients, {
    now: s.now,
    // The kind through the one accessor the send's re-check also reads.
    elective: consentKindOf(s.body) === 'elective',
    allowlistOnly: policy.send_allowlist_only === true,
    requireKnownRecipient: s.identity.send_policy?.require_known_recipient === true,
    suppressions: s.filters.suppressions,
    sendBlock: s.filters.block,
    sendAllow: s.filters.allow,
    contacts,
  });
  return { contacts, decisions };
}

/** What the steps before decided, handed to the composition. */
interface Decided {
  threadId: string;
  threaded: boolean;
  thread?: ThreadItem;
  recipients: Recipient[];
  decisions: SubmitDecision['decisions'];
  contacts: Map<string, ContactCounts>;
  from: Mailbox;
  domain?: DomainRecord;
  threading: Threading;
  customHeaders: ComposeInput['customHeaders'];
  autoStreak: number;
  undispatched: boolean;
}

/** The composition (17): what is composed (the MIME and its size are the send module's). */
function composeDecision(s: SubmitSnapshot, d: Decided): SubmitDecision {
  const { operation, body, identity, tenant } = s;
  const target = s.target;
  const forwarded = operation === 'forward' ? forwardedParts(target!, s.forwarded!, body) : undefined;
  const replyTo = carriesThreadToken(tenant, d.domain)
    ? threadTokenReplyTo(s.hashKey, d.from, identity.id, d.threadId)
    : undefined;
  const { hop, references, inReplyTo, marketing } = d.threading;
  return {
    messageId: `msg_${s.ulid}`,
    threadId: d.threadId,
    threaded: d.threaded,
    target,
    thread: d.thread,
    recipients: d.recipients,
    decisions: d.decisions,
    from: d.from,
    replyTo,
    hop,
    autoStreak: d.autoStreak,
    compose: {
      rfcMessageId: rfcMessageIdFor(s.ulid, d.from.address),
      now: s.now,
      from: d.from,
      recipients: d.recipients,
      subject: operation === 'send' ? (body.subject ?? '') : target!.subject,
      text: body.text,
      html: body.html,
      attachments: body.attachments,
      hop,
      operation,
      replyTo,
      customHeaders: d.customHeaders,
      signature:
        identity.signature_text || identity.signature_html
          ? { text: identity.signature_text, html: identity.signature_html }
          : undefined,
      disclosure: tenant.policy?.ai_disclosure,
      marketing,
      autoReply: body.kind === 'auto_reply',
      forward: forwarded?.original,
      forwardAttachments: forwarded?.attachments,
    },
    inReplyTo,
    references,
    linkLargeAttachments: tenant.policy?.large_attachments === 'link',
    contacts: d.contacts,
    ...(d.undispatched ? { undispatched: d.undispatched } : {}),
    caps: capsFor(tenant, identity),
  };
}

/** The daily caps of a send (counted after the checks: docs/architecture.md › The submit path, step 4): the identity's own, else the tenant policy's, else the defaults. */
export function capsFor(tenant: Tenant, identity: Identity): { tenant: number; identity: number } {
  const policy = tenant.policy ?? {};
  return {
    tenant: policy.daily_send_cap ?? DEFAULT_TENANT_DAILY_CAP,
    identity: identity.send_policy?.daily_cap ?? policy.identity_daily_send_cap ?? DEFAULT_IDENTITY_DAILY_CAP,
  };
}

/**
 * The References of a threaded message: the thread's chain when it has one, else the answered
 * message's own chain; the answered message's id is always in it. Trimmed to 2,048 bytes.
 */
export function referencesFor(thread: ThreadItem | undefined, target: MessageRecord | undefined): string[] {
  const chain = thread?.refs.length ? thread.refs : (target?.references ?? []);
  if (!target) return chain;
  const withoutTarget = chain.filter((r) => r !== target.rfc_message_id);
  return threadReferences(withoutTarget, target.rfc_message_id, target.in_reply_to);
}

/**
 * Check 13, the From: a plain send uses from_address (an active address of the identity) or the
 * primary. On a thread, from_address may also be a retiring address the thread already uses;
 * without it the thread keeps its From, or a reply uses the address the counterparty wrote to.
 */
export function chooseFrom(
  identity: Identity,
  addresses: ReadonlyMap<string, AddressRecord>,
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
    const invalid = (message: string) => invalidField('from_address', message);
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
 * Checks 14–15. A test tenant's mail goes to the simulator and loopback, which need no domain. Until
 * a live domain has a transport, a live send is a 422 rather than a message that can never leave —
 * or, under the tenant policy `unconfigured_transport: "hold"`, accepted `undispatched` (true).
 */
export function checkSendingDomain(
  tenant: Tenant,
  domain: DomainRecord | undefined,
  marketing: boolean,
): boolean {
  if (domain && (domain.state === 'pending' || domain.state === 'verifying')) {
    throw domainNotReady(domain.domain, domain.state);
  }
  if (tenant.mode === 'test') return false;
  const gap = transportGap(domain, marketing);
  if (!gap) return false;
  // A configuration not completed yet is held when the tenant says so.
  if (gap.holdable && tenant.policy?.unconfigured_transport === 'hold') return true;
  throw transportUnavailable(gap.reason);
}

/**
 * Whether a send carries the thread token in its Reply-To: from a domain with `reply_token =
 * 'subaddress'`, and every send of a test-mode tenant, so the local loop shows the token as a live
 * domain would use it and a reply to it (through `npm start`'s MX, or loopback) lands in its thread.
 */
export const carriesThreadToken = (tenant: Pick<Tenant, 'mode'>, domain: DomainRecord | undefined): boolean =>
  domain?.reply_token === 'subaddress' || tenant.mode === 'test';

/**
 * Reply-To and the thread token: the From's local part + `+t{thread ulid}.{mac}`; the MAC (HMAC of
 * identity and thread) lets inbound routing trust the token. Skipped when the local part would pass
 * 64 characters.
 */
export function threadTokenReplyTo(
  hashKey: string,
  from: Mailbox,
  identityId: string,
  threadId: string,
): Mailbox | undefined {
  const at = from.address.lastIndexOf('@');
  const mac = createHmac('sha256', hashKey)
    .update(`thread:${identityId}:${threadId}`)
    .digest('hex')
    .slice(0, 6);
  const local = `${from.address.slice(0, at)}+t${threadId.slice(4)}.${mac}`;
  if (local.length > 64) return undefined;
  return { address: `${local}${from.address.slice(at)}`, ...(from.name ? { name: from.name } : {}) };
}

/** Attachments a forward never re-attaches (executable or script content). */
const RISKY_NAME = /\.(exe|com|bat|cmd|scr|js|jse|vbs|vbe|wsf|msi|ps1|jar|hta|lnk)$/i;
const RISKY_TYPE = /javascript|x-msdownload|x-sh\b/i;

/** A forward: the original as composed, and the attachments attached again (include_attachments). */
function forwardedParts(original: MessageRecord, content: ForwardedContent, body: SendCommand) {
  return {
    original: {
      from: original.from,
      date: original.created_at,
      subject: original.subject,
      to: original.to,
      cc: original.cc,
      text: content.text,
      html: content.html,
    },
    attachments:
      body.include_attachments === false
        ? []
        : content.attachments.filter((a) => !RISKY_NAME.test(a.filename) && !RISKY_TYPE.test(a.content_type)),
  };
}
