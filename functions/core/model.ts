/**
 * The stored shapes of pmail's mail records (docs/architecture.md › Items and their keys). Times are epoch
 * milliseconds here; the API view (message-view.ts) turns them into RFC 3339.
 */
export type MessageStatus =
  | 'queued'
  | 'submitted'
  | 'delivered'
  | 'deferred'
  | 'bounced'
  | 'complained'
  | 'rejected'
  | 'failed'
  | 'uncertain'
  | 'suppressed'
  | 'canceled'
  | 'undispatched'
  | 'pending_approval'
  | 'received';

/** Every message status, in the API's order (the list's `status` filter). */
export const MESSAGE_STATUSES = [
  'pending_approval',
  'queued',
  'undispatched',
  'submitted',
  'delivered',
  'deferred',
  'bounced',
  'complained',
  'rejected',
  'failed',
  'uncertain',
  'suppressed',
  'canceled',
  'received',
] as const satisfies readonly MessageStatus[];

/** A recipient's status: a message's, but for the states only a whole message takes. */
export type DeliveryStatus = Exclude<
  MessageStatus,
  'canceled' | 'undispatched' | 'pending_approval' | 'received'
>;

export type RecipientField = 'to' | 'cc' | 'bcc';
export type MessageKind = 'transactional' | 'marketing' | 'auto_reply';
export type Provider = 'simulator' | 'loopback' | 'ses' | 'cloudflare' | 'smtp';

export interface Mailbox {
  address: string;
  name?: string;
}

export interface Delivery {
  /** The normalised address (domain lower case, A-label): what is sent to. Matched by its canonical form. */
  address: string;
  /** What the caller typed, when it differs from `address` (shown, never matched). */
  typed_address?: string;
  field: RecipientField;
  status: DeliveryStatus;
  smtp_code?: string;
  enhanced_code?: string;
  smtp_response?: string;
  bounce_type?: 'hard' | 'soft';
  updated_at: number;
  /** Deduplication of provider events: the last 20 provider event ids applied to this delivery. */
  event_ids?: string[];
}

/** The transport claim: one live attempt per message; `sending` marks the provider call. */
export interface Claim {
  token: string;
  at: number;
  sending?: boolean;
  /**
   * The transport invocation that wrote the claim (a nonce of its own): the token names the
   * execution, which a duplicate invocation shares, so this tells an invocation its own write after
   * a lost answer (core/send-attempt.ts › claimWriteSeen).
   */
  by?: string;
}

/**
 * What the last Record wrote under a claim: a retried Record of the same claim finds its
 * claim gone and replays this instead — the back-off's `next` and the thread-lock release.
 */
export interface RecordedClaim {
  token: string;
  next: 'done' | 'wait' | 'start';
  /** `wait`: the back-off seconds the parent execution waits. */
  seconds?: number;
  /** The message held its thread's lock and this Record released it. */
  release?: boolean;
}

/** The execution that is coming for this message, and nothing else. */
export interface Dispatch {
  execution: string;
  at: number;
  n: number;
}

export interface MessageRecord {
  id: string;
  tenant_id: string;
  identity_id: string;
  thread_id: string;
  direction: 'outbound' | 'inbound';
  status: MessageStatus;
  /** Why the message reached a failure status (rejected, failed, uncertain): a stable reason code. */
  status_reason?: string;
  status_detail?: string;
  /**
   * When an attempt's outcome moved the message to uncertain, rejected or failed: the time part of
   * that status event's id, so a retried Record emits the same event (core/delivery-outbox.ts).
   */
  status_at?: number;
  operation?: 'send' | 'reply' | 'reply_all' | 'forward';
  from: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  reply_to: Mailbox[];
  subject: string;
  kind: MessageKind;
  /**
   * The consent kind (core/job-kind.ts): `elective` mail is blocked by an unsubscribe. Written on
   * every outbound message; read only through `consentKindOf`.
   */
  consent_kind?: 'transactional' | 'elective';
  labels: string[];
  metadata?: Record<string, string>;
  flags: string[];
  rfc_message_id: string;
  in_reply_to?: string;
  /** The References chain this message was sent with (threaded mail only). */
  references?: string[];
  /** X-Pmail-Hop of this message (1 for a new send, else 1 + the hop answered). */
  hop?: number;
  /** The message holds its thread's lock while queued (one queued message per thread, docs/architecture.md › The submit path, step 5): release it when it leaves queued. */
  holds_lock?: boolean;
  provider?: Provider;
  provider_message_id?: string;
  raw_key: string;
  /**
   * Which request of its Idempotency-Key wrote the MIME (0, omitted: the first; n: the n-th to take
   * the key over). Each writes its own object, so the message points at the one its writer stored.
   */
  raw_n?: number;
  raw_size: number;
  created_at: number;
  updated_at: number;
  version: number;
  /**
   * Its number in the identity's message feed (docs/design/ordering.md), taken by the write that
   * committed it; none for a message committed before the feed had numbers.
   */
  pos?: number;
  deliveries?: Delivery[];
  dispatch?: Dispatch;
  /** The `n` of the last dispatch named on the message, kept when it leaves queued (retry names n + 1). */
  dispatch_n?: number;
  /** The operator retries that re-queued this failed message. */
  retry?: { n: number; at: number };
  claim?: Claim;
  /** The outcome the last Record wrote, replayed to a retry of that Record (RecordedClaim). */
  recorded?: RecordedClaim;
  backoff?: { n: number; first_at: number };
  /**
   * The tenant-local day (YYYY-MM-DD) whose daily send count this message took at submit; cancel
   * gives the count back to exactly this day. Absent when no daily count was taken (fully
   * suppressed) and on messages written without one (cancel then falls back to created_at's day).
   */
  quota_day?: string;
  /** A scheduled send: not attempted before this time (epoch ms). */
  send_at?: number;
  /**
   * A scheduled threaded send that waits for no answer: canceled (`reply_received`) at its claim
   * when a qualifying message arrived in its thread after it was committed (core/unless-reply.ts).
   */
  unless_reply?: boolean;
  /** A send by template: the template and the version it rendered. */
  template?: { name: string; version: number; category: 'transactional' | 'marketing' };
  /**
   * The validated variables it rendered with (kept so an attempt can re-render without the
   * caller); emptied by core/templates.ts › redactPayload for a transactional template once the
   * message is final. Never logged, never in the API view.
   */
  template_variables?: Record<string, unknown>;
  /** When the variables were emptied (epoch ms). */
  payload_redacted_at?: number;
  /** Inbound copies made by loopback name the outbound message they copy. */
  loopback_of?: { tenant_id: string; identity_id: string; message_id: string };
  /** A received message: what ingest read of it (docs/guides/receiving.md). */
  inbound?: InboundFields;
  /**
   * Held back from every reader without `messages:hold` (core/hold.ts), with the reason; no place in
   * the identity's feed until it is released.
   */
  held?: { reason: HeldReason; at: number };
  /** A held message a person released (core/hold.ts › releasedMessage): why it was held, when, by which key. */
  released?: { reason: HeldReason; at: number; by: string };
}

/** An attachment of a received message, listed (its bytes stay in the raw message). */
export interface InboundAttachment {
  filename?: string;
  content_type: string;
  size: number;
  /** Inline parts referenced from the HTML. */
  content_id?: string;
  /** An executable, script, macro document or archive (core/inbound.ts › RISKY_EXTENSIONS). */
  risky?: 'executable' | 'script' | 'macro_document' | 'archive';
}

/**
 * The received message's own fields. The typed addresses are the record's from/to/cc/reply_to; the
 * canonical ones (lower case, IDNA) are here. `parse` tells how much was read: `parsed`; `oversize`
 * or `unparsed` (over a cap, or the parser failed: headers only, the raw kept); `quarantined` (SES's
 * virus verdict FAIL: headers only).
 */
export interface InboundFields {
  /** SES's id of the received message (the local MX mints one the same way). */
  ses_message_id: string;
  received_at: number;
  /** MAIL FROM; empty for a bounce. */
  envelope_from: string;
  /** The RCPT TO this copy was routed by, as given. */
  envelope_recipient: string;
  /** The identity's address it was routed to (normalised, without the `+detail`). */
  routed_to: string;
  /** The dedupe key (core/inbound.ts › dedupeKey). */
  dedupe_key: string;
  canonical: { from: string; to: string[]; cc: string[]; reply_to: string[] };
  parse: 'parsed' | 'oversize' | 'unparsed' | 'quarantined';
  /** The cap passed (`oversize`). */
  cap?: 'size' | 'parts' | 'depth' | 'header';
  threaded_by: 'token' | 'in_reply_to' | 'new' | 'duplicate';
  /** Plain text (derived from the HTML when only HTML came), cut to core/inbound.ts's bound. */
  text?: string;
  /** The HTML, sanitised (scripts, event handlers, remote forms and frames removed), cut likewise. */
  html?: string;
  /**
   * What the sender wrote: the text without quoted history and signature (functions/inbound/extract.ts),
   * computed at ingest; absent when the message has no text.
   */
  extracted_text?: string;
  /** The text or HTML was cut to fit the record; the raw message has all of it. */
  body_truncated?: boolean;
  /** The headers that matter (core/inbound.ts › KEPT_HEADERS), in message order. */
  headers: { name: string; value: string }[];
  attachments: InboundAttachment[];
  verdicts: { spf?: string; dkim?: string; dmarc?: string; spam?: string; virus?: string };
  /** How well it proves its From (core/trust.ts › senderAuthOf); absent on a copy stored without it. */
  sender_auth?: 'authenticated' | 'unverified' | 'failed';
  /** Who sent it, as a reader is shown (core/trust.ts › Trust); absent on a copy stored without it. */
  trust?: Trust;
  /**
   * An earlier message of the identity has its Message-ID, and this copy is no plain duplicate of
   * it (core/inbound.ts › laterCopy): kept in that message's thread, flagged `possible_duplicate`.
   */
  possible_duplicate?: { of: string; reason: 'other_sender' | 'authentication_differs' };
  /** Why it counts as automatic mail (flag `auto_reply`). */
  auto?: 'auto_submitted' | 'precedence' | 'list' | 'autoresponder' | 'null_sender';
  /** A delivery status report kept as mail: it proved nothing (docs/guides/receiving.md › Which reports count). */
  dsn_unmatched?: boolean;
}

/* Who sent a received message (core/trust.ts, docs/guides/receiving.md › Who sent it). */

/** A verdict as RFC 8601 names it (`pass`, `fail`, `softfail`, `neutral`, `none`, `temperror`, `permerror`, `policy`). */
export type AuthVerdict = string;

/** The verdicts of one received message, as its receiving MTA computed them. */
export interface AuthResults {
  spf: AuthVerdict;
  /** The best DKIM signature's verdict: `pass` when any signature passed. */
  dkim: AuthVerdict;
  /** A DKIM signature passed whose domain is the From's domain or a parent of it (relaxed alignment). */
  dkim_aligned: boolean;
  dmarc: AuthVerdict;
  /** null when the verifier reports no ARC (SES). */
  arc: AuthVerdict | null;
  /** Who computed them: the local MX (mailauth) or SES receiving. */
  verified_by: 'mx' | 'ses';
}

/** What a reader is shown of who sent a received message: `inbound.trust`, the verdicts and what follows. */
export interface Trust extends AuthResults {
  /** DMARC passed, or a DKIM signature aligned with From passed: the From is proven. */
  authenticated: boolean;
  /** The From is a contact of the identity and the message proves it (docs/security.md › Contacts). */
  known_sender: boolean;
  /** The receive list entry that decided for this sender: `allow` (it admitted the message), `block`, or null. */
  listed: 'allow' | 'block' | null;
  /** The message's risk flags (core/trust.ts › RISK_FLAGS). */
  risk: string[];
}

export interface Tenant {
  id: string;
  status: 'active' | 'suspended';
  mode: 'live' | 'test';
  name: string;
  timezone: string;
  policy: TenantPolicy;
  /** Unique, lower case; names the tenant's test domain (`{slug}.{testDomain}`). */
  slug?: string;
  /** Compare-and-set counter of the policy (PATCH /v1/tenants/{tenant_id}/policy); absent = 0. */
  policy_version?: number;
  suspended_at?: number;
  created_at?: number;
  updated_at?: number;
}

/** The tenant policy fields the send path reads (the submit path); absent fields take the defaults. */
export interface TenantPolicy {
  /**
   * From address and fallback: a failing or suspended sending domain sends from the
   * identity's platform address instead (default false: such sends fail).
   */
  domain_fallback?: boolean;
  /** Default 10, never above 49. */
  max_recipients?: number;
  /** Sends per local day for the tenant (default 10,000). */
  daily_send_cap?: number;
  /** Default cap per identity per local day (default 1,000); an identity's send_policy may lower it. */
  identity_daily_send_cap?: number;
  /** Only recipients on a send-allow entry receive mail. */
  send_allowlist_only?: boolean;
  /** "link": attachments that make a message too large become signed links instead of a 413. */
  large_attachments?: 'reject' | 'link';
  /**
   * A live send whose sending domain has no transport configured yet is
   * refused with 422 (`refuse`, the default) or accepted and held as `undispatched` (`hold`) until
   * the sweeper finds the transport configured.
   */
  unconfigured_transport?: 'refuse' | 'hold';
  /** An AI disclosure on every send (core/compose.ts adds it to the body or the headers). */
  ai_disclosure?: { mode: 'footer' | 'header' | 'none'; text: string };
  /** Abuse auto-pause rates (defaults 0.003 complaints, 0.05 bounces). */
  abuse?: { complaint_rate_pause?: number; bounce_rate_pause?: number };
  /** Automatic replies (docs/guides/sending.md › Tenant policy). */
  auto_reply?: { enabled?: boolean; max_automatic_exchanges?: number };
}

export type DomainState =
  | 'pending'
  | 'verifying'
  | 'healthy'
  | 'degraded'
  | 'failing'
  | 'suspended'
  | 'removing'
  | 'removed';

/** A sending domain (`D#{domain}`). */
export interface DomainRecord {
  domain: string;
  tenant_id: string;
  state: DomainState;
  /** How mail from it leaves; `test` = the simulator/loopback of test tenants. */
  transport?: 'cloudflare' | 'ses' | 'smtp' | 'test';
  reply_token: 'subaddress' | 'none';
  /** `dom_{ulid}` for domains added through the API (seeded test domains have none). */
  id?: string;
  /** Why the domain is in its state (a stable code, e.g. `dkim_pending`, `dkim_failed`). */
  state_reason?: string;
  /** When the state was last checked against the provider (epoch ms). */
  checked_at?: number;
  /** The custom MAIL FROM domain (`pm-bounce.{domain}` style), when set. */
  mail_from?: string;
  /** The DNS records to publish, as onboarding answered them. */
  dns_records?: DnsRecord[];
  /** Whether the domain's MX names SES receiving of the deployment's Region, at the last check. */
  inbound_mx_published?: boolean;
  created_at?: number;
  updated_at?: number;
  /** Settings of the `ses` transport. */
  ses?: SesDomainSettings;
  /** Settings of the `smtp` transport (the relay adapter). */
  smtp?: SmtpDomainSettings;
  /** Settings of the `cloudflare` transport. */
  cloudflare?: CloudflareDomainSettings;
}

export interface DnsRecord {
  type: 'CNAME' | 'MX' | 'TXT';
  name: string;
  value: string;
  /**
   * What the record is for: `dkim`, `mail_from_mx`, `mail_from_spf`, `dmarc`, `inbound_mx` (where
   * SES receives the domain's mail; reported by the check, not required for verification).
   */
  purpose: 'dkim' | 'mail_from_mx' | 'mail_from_spf' | 'dmarc' | 'inbound_mx';
  /** False for a suggestion pmail does not check (DMARC). */
  required: boolean;
}

/** How the SES adapter sends for one domain (functions/transports/ses.transport.ts). */
export interface SesDomainSettings {
  /** The SES region of the identity; default: the deployment's region. */
  region?: string;
  /** The configuration set whose event destination feeds the delivery-events queue. */
  configuration_set?: string;
  /** A custom SES endpoint (`npm start`'s local SES); never set in AWS. */
  endpoint?: string;
}

/** How the SMTP relay adapter sends for one domain (functions/transports/smtp.transport.ts). */
export interface SmtpDomainSettings {
  /** The relay's host name (resolved and checked against the SSRF rules at every connection). */
  host: string;
  /** 465 (implicit TLS), or 587 / 25 / 2525 with STARTTLS required. */
  port: number;
  /** `implicit`: TLS from the first byte; `starttls`: STARTTLS required. Default: implicit on 465 only. */
  tls?: 'implicit' | 'starttls';
  /** The AUTH user; no AUTH when absent. */
  username?: string;
  /** `password`: AUTH PLAIN/LOGIN; `xoauth2`: AUTH XOAUTH2 with a bearer token. Default `password`. */
  auth?: 'password' | 'xoauth2';
  /**
   * The Secrets Manager secret holding `{ "password" }` or `{ "access_token" }` (write-only: the
   * API stores it and never returns it; only the SMTP transport Lambda may read it).
   */
  secret_ref?: string;
}

/** How the Cloudflare Email Sending adapter sends for one domain (functions/transports/cloudflare.transport.ts). */
export interface CloudflareDomainSettings {
  /** The Cloudflare account that owns the sending domain; default: the deployment's PM_CF_ACCOUNT_ID. */
  account_id?: string;
}

export interface Identity {
  id: string;
  tenant_id: string;
  name: string;
  status: 'active' | 'paused' | 'deleting' | 'deleted';
  pause_reason?: string;
  display_name?: string;
  owner_name?: string;
  owner_email?: string;
  /** The identity's primary sending address. */
  primary_address: string;
  /** Every address of the identity, any status (reply-all removes them all: never a copy to oneself). */
  addresses?: string[];
  signature_text?: string;
  signature_html?: string;
  /**
   * `require_approval`: every send (`true`) or every send to someone not yet a contact
   * (`first_contact`) waits for a person's approval (core/approval.ts).
   */
  send_policy?: {
    require_known_recipient?: boolean;
    daily_cap?: number;
    require_approval?: boolean | 'first_contact';
  };
  /** Which received mail is held back from the agent (core/hold.ts). */
  receive_policy?: ReceivePolicy;
  metadata?: Record<string, string>;
  /** Makes POST /v1/tenants/{tenant_id}/identities idempotent. */
  client_id?: string;
  created_at?: number;
  updated_at?: number;
}

/** `receive_policy.hold` (core/hold.ts): hold nothing, unauthenticated mail, or mail neither known nor allowed. */
export type HoldPolicy = 'none' | 'unauthenticated' | 'unknown';

/** Why a received message is held (core/hold.ts). */
export type HeldReason = 'blocked' | 'unauthenticated' | 'unknown' | 'rate';

/** An identity's `receive_policy` (set by a tenant-level key: core/guardrails.ts › identity.receive_policy). */
export interface ReceivePolicy {
  hold?: HoldPolicy;
  /** Mail from strangers (neither known nor allowed) shown per hour: per sender, and in all. */
  stranger_rate?: { per_sender?: number; total?: number };
}

export interface AddressRecord {
  address: string;
  identity_id: string;
  tenant_id: string;
  domain: string;
  status: 'active' | 'retiring' | 'retired';
}

export type KeyLevel = 'platform' | 'tenant' | 'identity';

/**
 * What authentication reads: the `K#{sha256(secret)}` item of one secret of a key. Keys made before
 * levels existed have no `level`: an identity key then has `identity_ids`, a tenant key not.
 */
export interface ApiKeyRecord {
  key_id: string;
  /** Absent on platform keys only. */
  tenant_id?: string;
  /** The key's permissions. */
  scopes: string[];
  /** Identity ids the key may act for; absent = every identity of the tenant. */
  identity_ids?: string[];
  level?: KeyLevel;
  name?: string;
  identity_id?: string;
  mode?: 'live' | 'test';
  expires_at?: number;
  revoked_at?: number;
  /** A secret replaced by a rotation works until this time. */
  secret_expires_at?: number;
  /** Draft-only: every send through this key waits for a person's approval (core/approval.ts). */
  sends_need_approval?: boolean;
  last_used_at?: number;
  created_at?: number;
}

/** The key itself (`KEY#{key_id}`): one per key, whatever the number of its secrets. */
export interface ApiKeyDefinition {
  key_id: string;
  name: string;
  level: KeyLevel;
  tenant_id?: string;
  identity_id?: string;
  scopes: string[];
  mode: 'live' | 'test';
  expires_at?: number;
  revoked_at?: number;
  last_used_at?: number;
  created_at: number;
  /** Draft-only: every send through this key waits for a person's approval (core/approval.ts). */
  sends_need_approval?: boolean;
  /** key_id of the key that minted it, or `bootstrap` / `local-seed`. */
  created_by: string;
  /** sha256 of each secret that may still authenticate (the newest last). */
  secrets: string[];
  version: number;
}

/** The sending domain as a transport sees it: its name, its transport and that transport's settings. */
export type TransportDomain = Pick<
  DomainRecord,
  'domain' | 'tenant_id' | 'transport' | 'ses' | 'smtp' | 'cloudflare'
>;

/** What an SMTP relay's secret holds (Secrets Manager, one secret per domain; see smtp.handler.ts). */
export interface SmtpSecret {
  /** AUTH PLAIN/LOGIN password. */
  password?: string;
  /** XOAUTH2 bearer token: the domain's `auth` is `xoauth2`. */
  access_token?: string;
}

/**
 * The thread item (`I#{idn}` / `TH#{thread}`), made on a thread's first threaded send:
 * the thread lock, the References chain, the count of consecutive
 * auto-replies and the From address the thread uses. `seq` changes with every send, so a
 * write composed against an older chain is refused and recomposed.
 */
export interface ThreadItem {
  lock_owner?: string;
  lock_until?: number;
  refs: string[];
  seq: number;
  auto_streak: number;
  from_address?: string;
}
