import createClient, { type Client } from 'openapi-fetch';
import { type BatchPorts, type BatchResult, type SendBatchMessage, sendBatch } from './batch.ts';
import { errorFromResponse, PmailWaitTimeoutError } from './errors.ts';
import { type RetryOptions, retryingFetch } from './retry.ts';
import type { components, operations, paths } from './schema.ts';
import { eventStream, type StreamEvent, type StreamOptions } from './stream.ts';
import { verifyWebhook, type WebhookEnvelope, type WebhookHeaders } from './webhooks.ts';

export type { BatchResult, SendBatchMessage } from './batch.ts';
export {
  ERROR_CODES,
  type ErrorCode,
  PmailError,
  PmailWaitTimeoutError,
  WebhookVerificationError,
} from './errors.ts';
export type { components, operations, paths } from './schema.ts';
export {
  PmailStreamClosedError,
  type StreamEvent,
  type StreamFrame,
  type StreamOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from './stream.ts';
export { verifyWebhook, WEBHOOK_TOLERANCE_S, type WebhookEnvelope, type WebhookHeaders } from './webhooks.ts';

type Schemas = components['schemas'];
export type Message = Schemas['Message'];
export type MessageStatus = Message['status'];
export type SendMessageRequest = Schemas['SendMessageRequest'];
export type ReplyMessageRequest = Schemas['ReplyMessageRequest'];
export type ForwardMessageRequest = Schemas['ForwardMessageRequest'];
export type SendMessageResponse = Schemas['SendMessageResponse'];
export type DryRunResult = Schemas['DryRunResult'];
export type MessageAttachment = Schemas['MessageAttachment'];
export type ThreadMessage = Schemas['ThreadMessage'];
export type Thread = operations['getThread']['responses'][200]['content']['application/json'];
/** Where a search hit matched: a plain-text excerpt of the mail (untrusted) and its matches' UTF-16 spans. */
export type Highlight = Schemas['Highlight'];
/** A message of a search's page: always with its highlight. */
export type SearchHit = Schemas['MessageListItem'] & { highlight: Highlight };
/** A conversation of a search's page: with the highlight of its newest matching message. */
export type ThreadSearchHit = Schemas['ThreadListItem'] & { highlight: Highlight };
/** One page of a search, newest first; pass `next_cursor` back as `cursor` for the next. */
export interface SearchPage<T = SearchHit> {
  data: T[];
  next_cursor: string | null;
}
export type ThreadSearchPage = SearchPage<ThreadSearchHit>;

export interface PmailOptions {
  /** `Authorization: Bearer <apiKey>` on every call. */
  apiKey: string;
  /** The API's origin, e.g. `http://127.0.0.1:8787` for `npm start`. */
  baseUrl: string;
  /** A fetch of your own (a proxy, a test double); the global fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** Resends after the first attempt (default 3); 0 turns retries off. */
  retries?: number;
  /** Retry timing; `sleep` and `random` are injectable for tests. */
  retry?: Partial<Omit<RetryOptions, 'retries'>>;
  /** The clock `messages.wait` and `webhooks.verify` read; Date.now by default. */
  now?: () => number;
}

/** The answer of a call that took an Idempotency-Key: the body, the key used, and whether it replayed. */
export interface Keyed<T> {
  data: T;
  /** The key sent: yours, or one generated (crypto.randomUUID). Reuse it to retry this request. */
  idempotencyKey: string;
  /** The server answered with the stored first answer (`Idempotent-Replayed: true`). */
  replayed: boolean;
}

export interface KeyOptions {
  /** Generated when absent; the answer returns it. */
  idempotencyKey?: string;
}

export interface SendOptions extends KeyOptions {
  /** Run every check without storing or sending (200, a DryRunResult). */
  dryRun?: boolean;
}

export interface WaitOptions {
  /** The status or statuses to wait for. */
  until: MessageStatus | MessageStatus[];
  /** Give up after this long (default 60 000 ms) with PmailWaitTimeoutError. */
  timeoutMs?: number;
  /** Between reads (default 1 000 ms). */
  intervalMs?: number;
}

/** A send (202, the stored message) or, with `dryRun: true`, its dry run (200, what would happen). */
export interface SendFn<Args extends unknown[]> {
  (...args: [...Args, opts?: SendOptions & { dryRun?: false }]): Promise<Keyed<SendMessageResponse>>;
  (...args: [...Args, opts: SendOptions & { dryRun: true }]): Promise<Keyed<DryRunResult>>;
}

type Result<R> = R extends { data?: infer D } ? Exclude<D, undefined> : never;
type Query<Op extends keyof operations> = operations[Op]['parameters'] extends { query?: infer Q }
  ? NonNullable<Q>
  : never;
type Body<S extends keyof Schemas> = Schemas[S];

/**
 * The pmail API. Every method resolves to the answer's body or rejects with a PmailError (typed
 * by `code`); calls that take an Idempotency-Key resolve to `{ data, idempotencyKey, replayed }`.
 * Retries follow packages/client/src/retry.ts: only requests a resend cannot repeat.
 */
export class Pmail {
  readonly http: Client<paths>;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly batch: Omit<BatchPorts, 'http'>;
  private readonly apiKey: string;
  private readonly random: () => number;

  constructor(opts: PmailOptions) {
    const sleep = opts.retry?.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    this.sleep = sleep;
    this.now = opts.now ?? Date.now;
    this.apiKey = opts.apiKey;
    this.random = opts.retry?.random ?? Math.random;
    const inner = opts.fetch ?? ((r: Request) => globalThis.fetch(r));
    this.batch = {
      retries: opts.retries ?? 3,
      baseDelayMs: opts.retry?.baseDelayMs ?? 200,
      maxDelayMs: opts.retry?.maxDelayMs ?? 30_000,
      random: opts.retry?.random ?? Math.random,
      sleep,
    };
    this.http = createClient<paths>({
      baseUrl: opts.baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${opts.apiKey}` },
      fetch: retryingFetch(inner, this.batch),
    });
  }

  private async unwrap<R extends { data?: unknown; error?: unknown; response: Response }>(
    call: Promise<R>,
  ): Promise<Result<R>> {
    const r = await call;
    if (r.response.ok) return r.data as Result<R>;
    throw errorFromResponse(r.response, r.error);
  }

  private async keyed<R extends { data?: unknown; error?: unknown; response: Response }>(
    idempotencyKey: string,
    call: (key: string) => Promise<R>,
  ): Promise<Keyed<Result<R>>> {
    const r = await call(idempotencyKey);
    if (!r.response.ok) throw errorFromResponse(r.response, r.error);
    return {
      data: r.data as Result<R>,
      idempotencyKey,
      replayed: r.response.headers.get('idempotent-replayed') === 'true',
    };
  }

  /** The calling key: its level, tenant, identity and permissions (GET /v1/me). */
  me = () => this.unwrap(this.http.GET('/v1/me'));

  readonly messages = {
    send: ((identityId: string, body: SendMessageRequest, opts: SendOptions = {}) =>
      this.keyed(opts.idempotencyKey ?? crypto.randomUUID(), (key) =>
        this.http.POST('/v1/identities/{identity_id}/messages', {
          params: {
            path: { identity_id: identityId },
            header: { 'Idempotency-Key': key },
            query: opts.dryRun ? { dry_run: true } : undefined,
          },
          body,
        }),
      )) as SendFn<[identityId: string, body: SendMessageRequest]>,
    reply: ((identityId: string, messageId: string, body: ReplyMessageRequest, opts: SendOptions = {}) =>
      this.keyed(opts.idempotencyKey ?? crypto.randomUUID(), (key) =>
        this.http.POST('/v1/identities/{identity_id}/messages/{message_id}/reply', {
          params: {
            path: { identity_id: identityId, message_id: messageId },
            header: { 'Idempotency-Key': key },
            query: opts.dryRun ? { dry_run: true } : undefined,
          },
          body,
        }),
      )) as SendFn<[identityId: string, messageId: string, body: ReplyMessageRequest]>,
    replyAll: ((identityId: string, messageId: string, body: ReplyMessageRequest, opts: SendOptions = {}) =>
      this.keyed(opts.idempotencyKey ?? crypto.randomUUID(), (key) =>
        this.http.POST('/v1/identities/{identity_id}/messages/{message_id}/reply-all', {
          params: {
            path: { identity_id: identityId, message_id: messageId },
            header: { 'Idempotency-Key': key },
            query: opts.dryRun ? { dry_run: true } : undefined,
          },
          body,
        }),
      )) as SendFn<[identityId: string, messageId: string, body: ReplyMessageRequest]>,
    forward: ((identityId: string, messageId: string, body: ForwardMessageRequest, opts: SendOptions = {}) =>
      this.keyed(opts.idempotencyKey ?? crypto.randomUUID(), (key) =>
        this.http.POST('/v1/identities/{identity_id}/messages/{message_id}/forward', {
          params: {
            path: { identity_id: identityId, message_id: messageId },
            header: { 'Idempotency-Key': key },
            query: opts.dryRun ? { dry_run: true } : undefined,
          },
          body,
        }),
      )) as SendFn<[identityId: string, messageId: string, body: ForwardMessageRequest]>,
    /**
     * Up to 100 sends in one request (POST …/messages/batch), each under its own `idempotency_key`
     * (generated when absent): one result per message, in order, each with its key. A message
     * whose answer says to retry (`not_attempted`, `request_in_progress`, a 5xx, a short 429) is
     * sent again under the same key; each is sent at most once.
     */
    sendBatch: (identityId: string, messages: SendBatchMessage[]): Promise<BatchResult[]> =>
      sendBatch({ http: this.http, ...this.batch }, identityId, messages),
    get: (identityId: string, messageId: string) =>
      this.unwrap(
        this.http.GET('/v1/identities/{identity_id}/messages/{message_id}', {
          params: { path: { identity_id: identityId, message_id: messageId } },
        }),
      ),
    /** One page, newest first; pass the answer's `next_cursor` as `cursor` for the next. */
    list: (identityId: string, query: Query<'listMessages'> = {}) =>
      this.unwrap(
        this.http.GET('/v1/identities/{identity_id}/messages', {
          params: { path: { identity_id: identityId }, query },
        }),
      ),
    /**
     * Full-text search of the identity's mail (docs/guides/receiving.md › Search): words and
     * "quoted phrases" in `q`, all of which must match, in any case and with or without accents;
     * one page, newest first, each hit with its `highlight`. Any list filter narrows it; a bad `q`
     * is `invalid_query`.
     */
    search: (identityId: string, q: string, query: Omit<Query<'listMessages'>, 'q'> = {}) =>
      this.messages.list(identityId, { ...query, q }) as Promise<SearchPage>,
    /**
     * Add and remove the message's labels; answers its labels after the change. A change is
     * idempotent (docs/guides/receiving.md › Labels): sending it again changes nothing more.
     */
    label: (identityId: string, messageId: string, change: Body<'LabelChange'>) =>
      this.unwrap(
        this.http.POST('/v1/identities/{identity_id}/messages/{message_id}/labels', {
          params: { path: { identity_id: identityId, message_id: messageId } },
          body: change,
        }),
      ),
    /** A sent message's stored MIME as pmail sent it (GET …/raw), as text. */
    raw: async (identityId: string, messageId: string): Promise<string> => {
      const r = await this.http.GET('/v1/identities/{identity_id}/messages/{message_id}/raw', {
        params: { path: { identity_id: identityId, message_id: messageId } },
        parseAs: 'text',
      });
      if (!r.response.ok) throw errorFromResponse(r.response, r.error);
      return r.data as string;
    },
    /** Received mail held back from the agents, newest first, with what the identity holds. */
    held: (identityId: string, query: Query<'listHeld'> = {}) =>
      this.unwrap(
        this.http.GET('/v1/identities/{identity_id}/held', {
          params: { path: { identity_id: identityId }, query },
        }),
      ),
    /** Deletes the message and its raw copy. */
    delete: (identityId: string, messageId: string) =>
      this.unwrap(
        this.http.DELETE('/v1/identities/{identity_id}/messages/{message_id}', {
          params: { path: { identity_id: identityId, message_id: messageId } },
        }),
      ),
    /** A failed send, sent again. Not resent after a network error: read the message to learn the outcome. */
    retry: (identityId: string, messageId: string) =>
      this.unwrap(
        this.http.POST('/v1/identities/{identity_id}/messages/{message_id}/retry', {
          params: { path: { identity_id: identityId, message_id: messageId } },
        }),
      ),
    /** A send held for approval, approved: sent once, after its caps and suppressions are checked again. */
    approve: (identityId: string, messageId: string) =>
      this.unwrap(
        this.http.POST('/v1/identities/{identity_id}/messages/{message_id}/approve', {
          params: { path: { identity_id: identityId, message_id: messageId } },
        }),
      ),
    /** A send held for approval, rejected: canceled, never sent. */
    reject: (identityId: string, messageId: string) =>
      this.unwrap(
        this.http.POST('/v1/identities/{identity_id}/messages/{message_id}/reject', {
          params: { path: { identity_id: identityId, message_id: messageId } },
        }),
      ),
    /** Held received mail, released: the agent reads it from then on. */
    release: (identityId: string, messageId: string) =>
      this.unwrap(
        this.http.POST('/v1/identities/{identity_id}/messages/{message_id}/release', {
          params: { path: { identity_id: identityId, message_id: messageId } },
        }),
      ),
    /** Not resent after a network error (the POST takes no key): read the message to learn the outcome. */
    cancel: (identityId: string, messageId: string) =>
      this.unwrap(
        this.http.POST('/v1/identities/{identity_id}/messages/{message_id}/cancel', {
          params: { path: { identity_id: identityId, message_id: messageId } },
        }),
      ),
    resolve: (identityId: string, messageId: string, body: Body<'ResolveRequest'>, opts: KeyOptions = {}) =>
      this.keyed(opts.idempotencyKey ?? crypto.randomUUID(), (key) =>
        this.http.POST('/v1/identities/{identity_id}/messages/{message_id}/resolve', {
          params: { path: { identity_id: identityId, message_id: messageId } },
          headers: { 'Idempotency-Key': key },
          body,
        }),
      ),
    /**
     * An attachment's bytes, sent or received (its `id` in the message's `attachments`), as the
     * API serves it: always a download, a risky or renderable type as application/octet-stream.
     */
    attachment: async (identityId: string, messageId: string, attachmentId: string): Promise<Uint8Array> => {
      const r = await this.http.GET(
        '/v1/identities/{identity_id}/messages/{message_id}/attachments/{attachment_id}',
        {
          params: { path: { identity_id: identityId, message_id: messageId, attachment_id: attachmentId } },
          parseAs: 'arrayBuffer',
        },
      );
      if (!r.response.ok) throw errorFromResponse(r.response, r.error);
      return new Uint8Array(r.data as ArrayBuffer);
    },
    /** Reads the message every `intervalMs` until its status is one of `until`; resolves to it. */
    wait: async (identityId: string, messageId: string, opts: WaitOptions): Promise<Message> => {
      const until = new Set<string>(Array.isArray(opts.until) ? opts.until : [opts.until]);
      const timeoutMs = opts.timeoutMs ?? 60_000;
      const deadline = this.now() + timeoutMs;
      for (;;) {
        const m = await this.messages.get(identityId, messageId);
        if (until.has(m.status)) return m;
        if (this.now() >= deadline) throw new PmailWaitTimeoutError(messageId, m.status, timeoutMs);
        await this.sleep(Math.min(opts.intervalMs ?? 1000, Math.max(0, deadline - this.now())));
      }
    },
  };

  readonly events = {
    /** One page of the key's events in feed order; pass the last id seen as `after` to read on. */
    list: (query: Query<'listEvents'> = {}) =>
      this.unwrap(this.http.GET('/v1/events', { params: { query } })),
    /** A ticket that opens one stream within 60 s (what `stream` uses in a browser). */
    ticket: (body: Body<'StreamTicketRequest'> = {}) =>
      this.unwrap(this.http.POST('/v1/stream/tickets', { body })),
  };

  /**
   * The key's events as they are committed, in feed order, over the event stream
   * (docs/guides/stream.md): `for await (const event of pmail.stream({ identityId }))`. It
   * reconnects with back-off and resumes after the last event it yielded, dropping repeats by id;
   * a key revoked or ended, or an `after` older than the feed keeps, ends it with
   * PmailStreamClosedError.
   */
  stream(opts: StreamOptions = {}): AsyncGenerator<StreamEvent> {
    return eventStream(
      {
        apiKey: this.apiKey,
        ticket: (body) => this.events.ticket(body),
        sleep: this.sleep,
        random: this.random,
      },
      opts,
    );
  }

  /** Conversations: both directions, each message with its text (docs/guides/receiving.md › Threads). */
  readonly threads = {
    /** One page, newest activity first; pass the answer's `next_cursor` as `cursor` for the next. */
    list: (identityId: string, query: Query<'listThreads'> = {}) =>
      this.unwrap(
        this.http.GET('/v1/identities/{identity_id}/threads', {
          params: { path: { identity_id: identityId }, query },
        }),
      ),
    /**
     * One conversation, oldest first, what was sent beside what came back, under a text budget
     * (`max_chars`, default 20,000 characters: the newest whole, older ones trimmed to their
     * extracted text, then the oldest left out; `text_budget` says what it did).
     */
    get: (identityId: string, threadId: string, query: Query<'getThread'> = {}) =>
      this.unwrap(
        this.http.GET('/v1/identities/{identity_id}/threads/{thread_id}', {
          params: { path: { identity_id: identityId, thread_id: threadId }, query },
        }),
      ),
    /**
     * Full-text search (as `messages.search`): the conversations holding a match, newest activity
     * first, each with the `highlight` of its newest matching message.
     */
    search: (identityId: string, q: string, query: Omit<Query<'listThreads'>, 'q'> = {}) =>
      this.threads.list(identityId, { ...query, q }) as Promise<ThreadSearchPage>,
    /** Add and remove the conversation's labels; answers its labels after the change (idempotent). */
    label: (identityId: string, threadId: string, change: Body<'LabelChange'>) =>
      this.unwrap(
        this.http.POST('/v1/identities/{identity_id}/threads/{thread_id}/labels', {
          params: { path: { identity_id: identityId, thread_id: threadId } },
          body: change,
        }),
      ),
  };

  readonly tenants = {
    create: (body: Body<'TenantCreateRequest'>, opts: KeyOptions = {}) =>
      this.keyed(opts.idempotencyKey ?? crypto.randomUUID(), (key) =>
        this.http.POST('/v1/tenants', { headers: { 'Idempotency-Key': key }, body }),
      ),
    list: (query: Query<'listTenants'> = {}) =>
      this.unwrap(this.http.GET('/v1/tenants', { params: { query } })),
    get: (tenantId: string) =>
      this.unwrap(this.http.GET('/v1/tenants/{tenant_id}', { params: { path: { tenant_id: tenantId } } })),
    /**
     * Full-text search across the tenant's identities (a tenant or platform key): as
     * `messages.search`, each hit with its `identity_id`.
     */
    searchMessages: (tenantId: string, q: string, query: Omit<Query<'searchTenantMessages'>, 'q'> = {}) =>
      this.unwrap(
        this.http.GET('/v1/tenants/{tenant_id}/messages', {
          params: { path: { tenant_id: tenantId }, query: { ...query, q } },
        }),
      ) as Promise<SearchPage>,
  };

  readonly identities = {
    create: (tenantId: string, body: Body<'IdentityCreateRequest'>, opts: KeyOptions = {}) =>
      this.keyed(opts.idempotencyKey ?? crypto.randomUUID(), (key) =>
        this.http.POST('/v1/tenants/{tenant_id}/identities', {
          params: { path: { tenant_id: tenantId } },
          headers: { 'Idempotency-Key': key },
          body,
        }),
      ),
    list: (tenantId: string, query: Query<'listIdentities'> = {}) =>
      this.unwrap(
        this.http.GET('/v1/tenants/{tenant_id}/identities', {
          params: { path: { tenant_id: tenantId }, query },
        }),
      ),
    get: (identityId: string) =>
      this.unwrap(
        this.http.GET('/v1/identities/{identity_id}', { params: { path: { identity_id: identityId } } }),
      ),
    update: (identityId: string, body: Body<'IdentityUpdateRequest'>) =>
      this.unwrap(
        this.http.PATCH('/v1/identities/{identity_id}', {
          params: { path: { identity_id: identityId } },
          body,
        }),
      ),
    pause: (identityId: string) => this.identities.update(identityId, { status: 'paused' }),
    resume: (identityId: string) => this.identities.update(identityId, { status: 'active' }),
  };

  readonly keys = {
    create: (body: Body<'KeyCreateRequest'>, opts: KeyOptions = {}) =>
      this.keyed(opts.idempotencyKey ?? crypto.randomUUID(), (key) =>
        this.http.POST('/v1/keys', { headers: { 'Idempotency-Key': key }, body }),
      ),
    list: (query: Query<'listKeys'> = {}) => this.unwrap(this.http.GET('/v1/keys', { params: { query } })),
    get: (keyId: string) =>
      this.unwrap(this.http.GET('/v1/keys/{key_id}', { params: { path: { key_id: keyId } } })),
    revoke: (keyId: string) =>
      this.unwrap(this.http.DELETE('/v1/keys/{key_id}', { params: { path: { key_id: keyId } } })),
  };

  readonly domains = {
    /** Not resent after a network error (the POST takes no key): list the domains to learn the outcome. */
    add: (tenantId: string, body: Body<'DomainCreateRequest'>) =>
      this.unwrap(
        this.http.POST('/v1/tenants/{tenant_id}/domains', {
          params: { path: { tenant_id: tenantId } },
          body,
        }),
      ),
    list: (tenantId: string) =>
      this.unwrap(
        this.http.GET('/v1/tenants/{tenant_id}/domains', { params: { path: { tenant_id: tenantId } } }),
      ),
    get: (tenantId: string, domainId: string) =>
      this.unwrap(
        this.http.GET('/v1/tenants/{tenant_id}/domains/{domain_id}', {
          params: { path: { tenant_id: tenantId, domain_id: domainId } },
        }),
      ),
    verify: (tenantId: string, domainId: string) =>
      this.unwrap(
        this.http.POST('/v1/tenants/{tenant_id}/domains/{domain_id}/verify', {
          params: { path: { tenant_id: tenantId, domain_id: domainId } },
        }),
      ),
    /** The DNS records to publish for the domain (its `dns_records`). */
    dns: async (tenantId: string, domainId: string) =>
      (await this.domains.get(tenantId, domainId)).dns_records,
  };

  readonly webhooks = {
    /** Not resent after a network error (the POST takes no key): list the endpoints to learn the outcome. */
    add: (body: Body<'WebhookCreateRequest'>) => this.unwrap(this.http.POST('/v1/webhooks', { body })),
    list: () => this.unwrap(this.http.GET('/v1/webhooks')),
    get: (webhookId: string) =>
      this.unwrap(
        this.http.GET('/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } } }),
      ),
    delete: (webhookId: string) =>
      this.unwrap(
        this.http.DELETE('/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } } }),
      ),
    /** The endpoint's recent delivery attempts. */
    deliveries: (webhookId: string) =>
      this.unwrap(
        this.http.GET('/v1/webhooks/{webhook_id}/deliveries', {
          params: { path: { webhook_id: webhookId } },
        }),
      ),
    /** Queues a test event to the endpoint; answers its `delivery_id`. */
    test: (webhookId: string) =>
      this.unwrap(
        this.http.POST('/v1/webhooks/{webhook_id}/test', { params: { path: { webhook_id: webhookId } } }),
      ),
    /** Checks a delivery's Standard Webhooks signature and timestamp; resolves to the parsed envelope. */
    verify: (payload: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEnvelope =>
      verifyWebhook(payload, headers, secret, { now: this.now }),
  };

  readonly templates = {
    list: (tenantId: string) =>
      this.unwrap(
        this.http.GET('/v1/tenants/{tenant_id}/templates', { params: { path: { tenant_id: tenantId } } }),
      ),
    /** The template rendered as a send renders it, with `variables` or samples from its schema. */
    preview: (tenantId: string, name: string, body: Body<'TemplatePreviewRequest'> = {}) =>
      this.unwrap(
        this.http.POST('/v1/tenants/{tenant_id}/templates/{name}/preview', {
          params: { path: { tenant_id: tenantId, name } },
          body,
        }),
      ),
  };

  readonly suppressions = {
    /** Not resent after a network error (the POST takes no key); adding an address twice is harmless. */
    add: (tenantId: string, body: Body<'SuppressionCreateRequest'>) =>
      this.unwrap(
        this.http.POST('/v1/tenants/{tenant_id}/suppressions', {
          params: { path: { tenant_id: tenantId } },
          body,
        }),
      ),
    list: (tenantId: string, query: Query<'listSuppressions'> = {}) =>
      this.unwrap(
        this.http.GET('/v1/tenants/{tenant_id}/suppressions', {
          params: { path: { tenant_id: tenantId }, query },
        }),
      ),
    remove: (tenantId: string, address: string) =>
      this.unwrap(
        this.http.DELETE('/v1/tenants/{tenant_id}/suppressions/{address}', {
          params: { path: { tenant_id: tenantId, address } },
        }),
      ),
  };
}
