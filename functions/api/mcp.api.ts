import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { identityIdRequired, type PmailError } from '../core/errors.ts';
import {
  encodeFollowCursor,
  FOLLOW_HEAD,
  WAIT_DEFAULT_SECONDS,
  WAIT_MAX_SECONDS,
  waitBackoffMs,
} from '../core/follow.ts';
import { IDEMPOTENCY_KEY_PATTERN, MAX_BATCH_MESSAGES, MAX_LABELS } from '../core/limits.ts';
import {
  attemptStateOf,
  type SendOperationName,
  seedRefusalOf,
  uncertainCodeOf,
} from '../core/reply-attempt.ts';
import { MAX_QUERY_CHARS, MAX_QUERY_WORDS, MAX_TENANT_SEARCH_IDENTITIES } from '../core/search-text.ts';
import {
  THREAD_MAX_CHARS_DEFAULT,
  THREAD_MAX_CHARS_MAX,
  THREAD_MAX_CHARS_MIN,
} from '../core/thread-budget.ts';
import { FOLLOW_UP_NOTES, followUpState } from '../core/unless-reply.ts';
import {
  fenced,
  OUTSIDE_TEXT,
  outsideTextNote,
  tagFreeJson,
  UNTRUSTED_NOTICE,
} from '../core/untrusted-fence.ts';
import type { DepsFor } from '../lambda-ports.ts';
import { authenticate, type Caller, type Permission } from './auth.ts';
import { type ApiEvent, type ApiResult, errorResponse, header } from './http.ts';

/**
 * The MCP server: the Model Context Protocol's Streamable HTTP transport at `POST /mcp`,
 * stateless (a new server and transport per request, JSON answers, no session), so one Lambda
 * serves it like any route group. Every tool is one call of the HTTP API's own route-group handler
 * in process, with the caller's Authorization header: the same keys, permissions, objects and error
 * codes as the REST API. A tool the key may not use is not listed.
 *
 * SDK: @modelcontextprotocol/sdk (McpServer.registerTool, WebStandardStreamableHTTPServerTransport;
 * https://github.com/modelcontextprotocol/typescript-sdk, docs/server.md › Streamable HTTP, stateless).
 */
export type GroupHandler = (e: ApiEvent) => Promise<ApiResult>;

export interface McpGroups {
  messages: GroupHandler;
  events: GroupHandler;
  threads: GroupHandler;
}

/** What a retry-safe agent must know; part of every send tool's description. */
const RETRY_RULES =
  'Idempotency: idempotency_key is required. Choose a new unique key for each new email and keep it: if the call fails, times out or its answer is lost, call again with the SAME key and the SAME arguments; pmail then returns the first result (deduplicated: true) and never sends a second email. A different key with the same arguments IS a second email. ' +
  'Status: pending_approval when the identity’s sends wait for a person’s approval (nothing sent until approved), queued, then submitted (the provider accepted it) and delivered, or bounced/rejected/failed/suppressed. `uncertain` means the provider may or may not have sent it (its answer was lost): pmail never resends it automatically, and you must NOT send it again under a new key; tell a human, or call resolve once the outcome is known.';

/** pmail's own note on a send that waits for a person's approval (docs/guides/sending.md › Approval before a send). */
export const PENDING_APPROVAL_NOTE =
  "WAITING FOR A PERSON'S APPROVAL: this identity's sends are reviewed before they leave. Nothing has been sent and nothing is counted yet; a person with the messages:approve permission approves (then it is sent once) or rejects it (status canceled, status_reason rejected_by_reviewer). Do NOT send it again under a new key; follow it with get_message.";

const idem = z
  .string()
  .regex(IDEMPOTENCY_KEY_PATTERN)
  .describe(
    '1–255 printable ASCII characters; reuse it on every retry of this one email (the Idempotency-Key header).',
  );
const identityId = z
  .string()
  .optional()
  .describe('The sending identity (idn_…). Optional for a key of one identity, which uses its own.');
const messageId = z.string().describe('The message id (msg_…).');
const addresses = z.array(z.string()).max(50);
const body = {
  text: z.string().optional().describe('Plain-text body.'),
  html: z.string().optional().describe('HTML body.'),
};
/** A scheduled send, and a follow-up that waits for no answer (core/unless-reply.ts). */
const schedule = {
  send_at: z.string().optional().describe('ISO 8601 time to send at (scheduled send).'),
  unless_reply: z
    .boolean()
    .optional()
    .describe(
      'With send_at, in a thread: a follow-up that waits for no answer. At send_at it is canceled (status canceled, status_reason reply_received) if a person answered in its thread after it was accepted (not an auto-reply, a bounce or a duplicate); else it is sent. Never both.',
    ),
};
const SCHEDULE_FIELDS = ['send_at', 'unless_reply'];

/** The fields of a new email (send_email, and each email of send_batch). */
const newEmail = {
  to: addresses.optional(),
  cc: addresses.optional(),
  bcc: addresses.optional(),
  subject: z.string().optional(),
  ...body,
  template: z
    .string()
    .optional()
    .describe("A tenant template's name: send it with `variables` instead of subject, text and html."),
  variables: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("The template's variables, checked against its schema (invalid_payload names the paths)."),
  thread_id: z
    .string()
    .optional()
    .describe('Send into this thread (thr_…), threaded after its latest message.'),
  ...schedule,
};
/** The body of POST …/messages for a new email's fields. */
const newEmailBody = (a: Record<string, unknown>) =>
  a.template === undefined
    ? {
        subject: '',
        ...pick(a, ['to', 'cc', 'bcc', 'subject', 'text', 'html', 'thread_id', ...SCHEDULE_FIELDS]),
      }
    : pick(a, ['to', 'cc', 'bcc', 'template', 'variables', 'thread_id', ...SCHEDULE_FIELDS]);

interface ToolSpec {
  permission: Permission;
  /** list_events needs a tenant-level key (the feed is the tenant's). */
  tenantOnly?: boolean;
  /** Whether, without an identity, the call spans the key's tenant (search_messages with a tenant key). */
  spansTenant?(key: Caller): boolean;
  description: string;
  input: z.ZodRawShape;
  /** The HTTP call this tool makes. */
  call(
    args: Record<string, any>,
    identity: string,
    key: Caller,
  ): { method: string; path: string; body?: unknown; query?: Record<string, string>; key?: string };
  operation?: SendOperationName;
  /** Where the result carries text from outside (its metadata says so; the result is fenced). */
  outside: OutsideText;
  /** The route group the call goes to (default: events for the feed, else messages). */
  group?: keyof McpGroups;
  /** pmail's own note on a result, shown before the fence (e.g. how many messages a budget left out). */
  note?(result: unknown): string | undefined;
  /** A tool of several HTTP calls (wait_for_message): runs them itself, instead of the one `call`. */
  run?(invoke: Invoke, args: Record<string, any>, identity: string, wait: WaitPorts): Promise<InvokeResult>;
}

type HttpCall = ReturnType<ToolSpec['call']>;
/** The fields of a result that are outside text, and where they are (`data[]`: in each item). */
interface OutsideText {
  in?: string;
  fields: readonly string[];
}
const MESSAGE: OutsideText = { fields: OUTSIDE_TEXT.message };
const MESSAGES: OutsideText = { in: 'data[]', fields: OUTSIDE_TEXT.message };
interface InvokeResult {
  status: number;
  body: any;
}
/** One HTTP call of a tool through its route group, with the caller's Authorization. */
type Invoke = (c: HttpCall) => Promise<InvokeResult>;
/** What a waiting tool waits with: the deps' clock, and a pause (real time; tests may pass their own). */
export interface WaitPorts {
  clock: () => number;
  sleep: (ms: number) => Promise<void>;
}

const enc = encodeURIComponent;
const msgPath = (identity: string, id: string, action = '') =>
  `/v1/identities/${enc(identity)}/messages/${enc(id)}${action ? `/${action}` : ''}`;
const pick = (a: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));

/** What a label tool takes (core/labels.ts: the alphabet, at most MAX_LABELS). */
const labelChange = {
  add: z.array(z.string()).max(MAX_LABELS).optional().describe('Labels to add.'),
  remove: z.array(z.string()).max(MAX_LABELS).optional().describe('Labels to remove.'),
};
const LABEL_RULES = `A label is 1–64 of A-Z a-z 0-9 . _ : / - (starting with a letter or digit), at most ${MAX_LABELS}; adding one already there or removing one absent changes nothing, so a change is safe to repeat.`;

/** The list filters (core/list-filter.ts), as the list tools take them. */
const FILTERS = ['label', 'from', 'to', 'subject', 'since', 'until'];
const listFilters = {
  label: z.string().optional().describe('Only those with this label.'),
  from: z.string().optional().describe('An address, or a domain (example.com).'),
  to: z.string().optional().describe('An address, or a domain (example.com).'),
  subject: z.string().optional().describe('A part of the subject (any case, any accents).'),
  since: z.string().optional().describe('RFC 3339 time: at or after it.'),
  until: z.string().optional().describe('RFC 3339 time: at or before it.'),
};
const FILTER_RULES =
  'Filters (each optional, all combined): label, from, to (an address or a domain), subject (a part of it), since, until (RFC 3339). A filtered page may hold fewer than limit, even none, with a next_cursor to go on.';

/** A call's query string: the arguments named, as strings. */
const queryOf = (a: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(Object.entries(pick(a, keys)).map(([k, v]) => [k, String(v)]));

/** A tenant key of no listed identities: its searches may span the tenant (GET /v1/tenants/{id}/messages). */
const tenantWide = (key: Caller) =>
  key.scope.level === 'tenant' && !key.identity_ids && !!key.scope.tenant_id;

/** Full-text search (docs/guides/receiving.md › Search): one page of the hits, newest first. */
function searchTool(): ToolSpec {
  return {
    permission: 'messages:read',
    outside: { in: 'data[]', fields: [...OUTSIDE_TEXT.message, ...OUTSIDE_TEXT.highlight] },
    spansTenant: tenantWide,
    description: `Search mail, received and sent, for words and "quoted phrases" (q): every word and phrase must match, in any case and with or without accents, in the subject, the participants (names and addresses), the text, the extracted text or an attachment's file name. q is at most ${MAX_QUERY_CHARS} characters and ${MAX_QUERY_WORDS} words (else invalid_query). Results are newest first, a page at a time (pass next_cursor back as cursor); each carries highlight: { field, text, matches: [{ start, end }] } — where it matched, a plain-text passage of the mail and the matches' offsets in it (UTF-16 code units). A search is not a feed: to follow new mail use wait_for_message. Without identity_id, a key of one identity searches its own; a tenant key searches its tenant's identities (the first ${MAX_TENANT_SEARCH_IDENTITIES}; each hit carries identity_id). ${FILTER_RULES} has_attachment, direction and thread_id narrow it further.`,
    input: {
      identity_id: z
        .string()
        .optional()
        .describe(
          'The identity (idn_…) whose mail to search; absent: the key’s own, or a tenant key’s whole tenant.',
        ),
      q: z.string().describe('Words and "quoted phrases"; all must match.'),
      ...listFilters,
      has_attachment: z.boolean().optional(),
      direction: z.enum(['inbound', 'outbound']).optional(),
      thread_id: z.string().optional().describe('Only messages of this thread (thr_…).'),
      limit: z.number().int().min(1).max(100).optional(),
      cursor: z.string().optional(),
    },
    call: (a, identity, key) => ({
      method: 'GET',
      path: identity
        ? `/v1/identities/${enc(identity)}/messages`
        : `/v1/tenants/${enc(key.scope.tenant_id ?? '')}/messages`,
      query: queryOf(a, ['q', ...FILTERS, 'has_attachment', 'direction', 'thread_id', 'limit', 'cursor']),
    }),
  };
}

/** `reply` and `reply_all`: the same input and call, to their own route. */
function replyTool(operation: 'reply' | 'reply_all', description: string): ToolSpec {
  return {
    permission: 'messages:send',
    operation,
    outside: MESSAGE,
    description,
    input: { identity_id: identityId, message_id: messageId, idempotency_key: idem, ...body, ...schedule },
    call: (a, identity) => ({
      method: 'POST',
      path: msgPath(identity, a.message_id, operation === 'reply' ? 'reply' : 'reply-all'),
      body: pick(a, ['text', 'html', ...SCHEDULE_FIELDS]),
      key: a.idempotency_key,
    }),
  };
}

/** The budget's marker: how many of the oldest messages a thread's answer left out, and whether the newest was cut. */
export function threadBudgetNote(thread: unknown): string | undefined {
  const b = (thread as { text_budget?: { max_chars: number; messages_omitted: number; newest_cut: boolean } })
    ?.text_budget;
  if (!b || (b.messages_omitted === 0 && !b.newest_cut)) return undefined;
  const left = b.messages_omitted
    ? `${b.messages_omitted} older message${b.messages_omitted === 1 ? ' was' : 's were'} left out to fit max_chars=${b.max_chars}`
    : '';
  const cut = b.newest_cut ? `the newest message's extracted text was cut to ${b.max_chars} characters` : '';
  return `TEXT BUDGET: ${[left, cut].filter(Boolean).join('; ')}. Read any message whole with get_message, or call get_thread again with a larger max_chars.`;
}

/** Conversations (docs/guides/receiving.md › Threads): the threads route group. */
const THREAD_TOOLS: Record<string, ToolSpec> = {
  list_threads: {
    permission: 'messages:read',
    outside: { in: 'data[]', fields: OUTSIDE_TEXT.thread },
    group: 'threads',
    description: `List an identity’s conversations, newest activity first: subject, participants, message_count, last_message_at, labels and a snippet of the latest message. Pass next_cursor back as cursor for the next page; read one with get_thread. ${FILTER_RULES}`,
    input: {
      identity_id: identityId,
      limit: z.number().int().min(1).max(100).optional(),
      cursor: z.string().optional(),
      ...listFilters,
    },
    call: (a, identity) => ({
      method: 'GET',
      path: `/v1/identities/${enc(identity)}/threads`,
      query: Object.fromEntries(
        Object.entries(pick(a, ['limit', 'cursor', ...FILTERS])).map(([k, v]) => [k, String(v)]),
      ),
    }),
  },
  label_thread: {
    permission: 'messages:write',
    outside: { fields: OUTSIDE_TEXT.labels },
    group: 'threads',
    description: `Add and remove a conversation's labels (your state on it: needs-reply, handled, escalated…); returns its labels after the change. ${LABEL_RULES}`,
    input: {
      identity_id: identityId,
      thread_id: z.string().describe('The thread id (thr_…).'),
      ...labelChange,
    },
    call: (a, identity) => ({
      method: 'POST',
      path: `/v1/identities/${enc(identity)}/threads/${enc(a.thread_id)}/labels`,
      body: pick(a, ['add', 'remove']),
    }),
  },
  get_thread: {
    permission: 'messages:read',
    outside: { fields: OUTSIDE_TEXT.thread },
    group: 'threads',
    description: `Read one conversation in one call: its messages oldest first, what you sent beside what came back, each with its text. Budget: max_chars (default ${THREAD_MAX_CHARS_DEFAULT}, ${THREAD_MAX_CHARS_MIN}–${THREAD_MAX_CHARS_MAX}) bounds the characters of all messages' text together: the newest messages stay whole, older ones are trimmed to their extracted text (what the sender wrote, without quoted history and signature: text_form "extracted"), then the oldest are left out (text_budget.messages_omitted says how many); when the newest alone is over, its extracted text is cut to max_chars (text_form "cut"). text: "extracted" shows every message trimmed from the start. get_message has any message's full text and HTML. Reply to a received message with reply.`,
    input: {
      identity_id: identityId,
      thread_id: z.string().describe('The thread id (thr_…).'),
      max_chars: z
        .number()
        .int()
        .min(THREAD_MAX_CHARS_MIN)
        .max(THREAD_MAX_CHARS_MAX)
        .optional()
        .describe(`The text budget in characters (default ${THREAD_MAX_CHARS_DEFAULT}).`),
      text: z
        .enum(['whole', 'extracted'])
        .optional()
        .describe(
          '`extracted`: every message as its extracted text (default `whole`: the newest whole while they fit).',
        ),
    },
    call: (a, identity) => ({
      method: 'GET',
      path: `/v1/identities/${enc(identity)}/threads/${enc(a.thread_id)}`,
      query: Object.fromEntries(
        Object.entries(pick(a, ['max_chars', 'text'])).map(([k, v]) => [k, String(v)]),
      ),
    }),
    note: threadBudgetNote,
  },
};

export const TOOLS: Record<string, ToolSpec> = {
  send_email: {
    permission: 'messages:send',
    operation: 'send',
    outside: MESSAGE,
    description: `Send a new email from an identity: subject and text/html, or a template with its variables. Returns the Message (status queued at first, or pending_approval). ${RETRY_RULES}`,
    input: { identity_id: identityId, idempotency_key: idem, ...newEmail },
    call: (a, identity) => ({
      method: 'POST',
      path: `/v1/identities/${enc(identity)}/messages`,
      body: newEmailBody(a),
      key: a.idempotency_key,
    }),
  },
  send_batch: {
    permission: 'messages:send',
    operation: 'send',
    outside: { in: 'data[].message', fields: OUTSIDE_TEXT.message },
    description: `Send up to ${MAX_BATCH_MESSAGES} new emails in one call, each with its own idempotency_key and the fields of send_email. Returns data: one result per email, in order: status 202 with its message, or an error status with its error (each email is refused or accepted exactly as send_email would). Retry the emails whose error is retryable (not_attempted: the batch ran out of time before it) with the SAME keys; calling again with the same emails is always safe. ${RETRY_RULES}`,
    input: {
      identity_id: identityId,
      messages: z
        .array(z.object({ idempotency_key: idem, ...newEmail }))
        .min(1)
        .max(MAX_BATCH_MESSAGES),
    },
    call: (a, identity) => ({
      method: 'POST',
      path: `/v1/identities/${enc(identity)}/messages/batch`,
      body: {
        messages: a.messages.map((m: Record<string, unknown>) => ({
          idempotency_key: m.idempotency_key,
          ...newEmailBody(m),
        })),
      },
    }),
  },
  reply: replyTool(
    'reply',
    `Reply to the sender (Reply-To, else From) of a message, in its thread ("Re:" added once). ${RETRY_RULES}`,
  ),
  reply_all: replyTool(
    'reply_all',
    `Reply to the sender and every other recipient of a message, in its thread. ${RETRY_RULES}`,
  ),
  forward: {
    permission: 'messages:send',
    operation: 'forward',
    outside: MESSAGE,
    description: `Forward a message (with its attachments) to new recipients, with your text above it. ${RETRY_RULES}`,
    input: {
      identity_id: identityId,
      message_id: messageId,
      idempotency_key: idem,
      to: addresses,
      cc: addresses.optional(),
      bcc: addresses.optional(),
      ...body,
      ...schedule,
    },
    call: (a, identity) => ({
      method: 'POST',
      path: msgPath(identity, a.message_id, 'forward'),
      body: pick(a, ['to', 'cc', 'bcc', 'text', 'html', ...SCHEDULE_FIELDS]),
      key: a.idempotency_key,
    }),
  },
  get_message: {
    permission: 'messages:read',
    outside: MESSAGE,
    description:
      'Read one message, sent or received: its status (and per-recipient deliveries), addresses, subject and body (text, sanitised html, extracted_text: what its sender wrote without quoted history and signature; attachments). body_withheld names why a body is not shown (payload_redacted: a transactional template’s message once final). Poll this after a send to follow it to a final status. `uncertain` means nobody knows whether it went out: do not send it again.',
    input: { identity_id: identityId, message_id: messageId },
    call: (a, identity) => ({ method: 'GET', path: msgPath(identity, a.message_id) }),
  },
  list_messages: {
    permission: 'messages:read',
    outside: MESSAGES,
    description: `List an identity’s messages, newest first; pass next_cursor back as cursor for the next page. ${FILTER_RULES} has_attachment: only messages with (true) or without (false) one.`,
    input: {
      identity_id: identityId,
      direction: z.enum(['inbound', 'outbound']).optional(),
      limit: z.number().int().min(1).max(100).optional(),
      cursor: z.string().optional(),
      ...listFilters,
      has_attachment: z.boolean().optional(),
    },
    call: (a, identity) => ({
      method: 'GET',
      path: `/v1/identities/${enc(identity)}/messages`,
      query: Object.fromEntries(
        Object.entries(pick(a, ['direction', 'limit', 'cursor', ...FILTERS, 'has_attachment'])).map(
          ([k, v]) => [k, String(v)],
        ),
      ),
    }),
  },
  label_message: {
    permission: 'messages:write',
    outside: { fields: OUTSIDE_TEXT.labels },
    description: `Add and remove a message's labels; returns its labels after the change. ${LABEL_RULES}`,
    input: { identity_id: identityId, message_id: messageId, ...labelChange },
    call: (a, identity) => ({
      method: 'POST',
      path: msgPath(identity, a.message_id, 'labels'),
      body: pick(a, ['add', 'remove']),
    }),
  },
  cancel: {
    permission: 'messages:send',
    outside: MESSAGE,
    description:
      'Cancel a message that is still queued (a scheduled send, or one not yet handed to the provider). Safe to repeat.',
    input: { identity_id: identityId, message_id: messageId },
    call: (a, identity) => ({ method: 'POST', path: msgPath(identity, a.message_id, 'cancel') }),
  },
  resolve: {
    permission: 'messages:write',
    outside: MESSAGE,
    description:
      'Record what a human found out about an `uncertain` message: outcome sent (it arrived) or not_sent (it did not; you may then send it again under a NEW idempotency key). Only for uncertain messages.',
    input: {
      identity_id: identityId,
      message_id: messageId,
      outcome: z.enum(['sent', 'not_sent']),
      idempotency_key: idem.optional(),
    },
    call: (a, identity) => ({
      method: 'POST',
      path: msgPath(identity, a.message_id, 'resolve'),
      body: { outcome: a.outcome },
      key: a.idempotency_key,
    }),
  },
  list_events: {
    permission: 'events:read',
    tenantOnly: true,
    outside: { in: 'data[]', fields: OUTSIDE_TEXT.event },
    description:
      'Read the tenant’s event feed (message.delivered, message.bounced, message.uncertain …), oldest first; pass the last id seen as `after`.',
    input: { after: z.string().optional(), limit: z.number().int().min(1).max(100).optional() },
    call: (a) => ({
      method: 'GET',
      path: '/v1/events',
      query: Object.fromEntries(Object.entries(pick(a, ['after', 'limit'])).map(([k, v]) => [k, String(v)])),
    }),
  },
  search_messages: searchTool(),
  ...THREAD_TOOLS,
  wait_for_message: waitForMessageTool(),
};

/** The tools this key may use (the others are not listed). */
export function toolsFor(key: Caller): string[] {
  return Object.entries(TOOLS)
    .filter(([, t]) => key.scopes.includes(t.permission))
    .filter(([, t]) => !t.tenantOnly || tenantWide(key))
    .map(([name]) => name);
}

/** The `mcp` route group: POST /mcp. */
export function mcpApi(deps: DepsFor<'api-mcp'>, groups: McpGroups, sleep: WaitPorts['sleep'] = pause) {
  const wait: WaitPorts = { clock: deps.clock, sleep };
  return async (event: ApiEvent): Promise<ApiResult> => {
    const requestId = `req_${deps.newId()}`;
    const authorization = header(event, 'authorization');
    let key: Caller;
    try {
      key = await authenticate(deps, authorization);
    } catch (err) {
      return errorResponse(err, requestId, deps.log);
    }
    const server = new McpServer({ name: 'pmail', version: '0.1.0' });
    for (const name of toolsFor(key)) {
      const spec = TOOLS[name];
      const metadata = {
        description: `${spec.description} ${outsideTextNote(spec.outside.fields, spec.outside.in)}`,
        inputSchema: spec.input,
        _meta: { 'pmail/outside_text': spec.outside },
      };
      server.registerTool(name, metadata, (async (args: Record<string, unknown>) =>
        runTool(groups, spec, args, key, authorization!, wait)) as never);
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      // API Gateway's own payload limit; the send handlers enforce pmail's 7 MiB below it.
      maxRequestBodySize: 10 * 1024 * 1024,
    });
    try {
      await server.connect(transport);
      const res = await transport.handleRequest(toRequest(event));
      const headers: Record<string, string> = { 'request-id': requestId };
      res.headers.forEach((v, k) => {
        headers[k] = v;
      });
      return { statusCode: res.status, headers, body: await res.text() };
    } catch (err) {
      return errorResponse(err, requestId, deps.log);
    } finally {
      await server.close();
    }
  };
}

async function runTool(
  groups: McpGroups,
  spec: ToolSpec,
  args: Record<string, any>,
  key: Caller,
  authorization: string,
  wait: WaitPorts,
): Promise<CallToolResult> {
  const identity = (args.identity_id as string | undefined) ?? key.scope.identity_id;
  if (!identity && !spec.tenantOnly && !spec.spansTenant?.(key)) {
    return errorResult(envelopeOf(identityIdRequired()));
  }
  const invoke: Invoke = (c) => invokeGroup(groups, c, authorization, spec.group);
  const { status, body: parsed } = spec.run
    ? await spec.run(invoke, args, identity ?? '', wait)
    : await invoke(spec.call(args, identity ?? '', key));
  if (status >= 400) {
    const e = parsed.error;
    if (spec.operation && e) {
      const seed = seedRefusalOf(e.code, spec.operation, e.details?.errors?.[0]?.path);
      if (seed) e.details = { ...e.details, seed_code: seed };
    }
    return errorResult(parsed);
  }
  const result =
    spec.operation || spec.permission === 'messages:read' ? withAttempt(parsed, spec.operation) : parsed;
  const follow =
    result && typeof result === 'object' && 'unless_reply' in result ? followUpState(result) : undefined;
  const notes = [
    spec.operation && pendingApproval(result) ? PENDING_APPROVAL_NOTE : undefined,
    follow ? FOLLOW_UP_NOTES[follow] : undefined,
    spec.note?.(result),
  ].flatMap((text) => (text ? [{ type: 'text' as const, text }] : []));
  return {
    content: [...notes, { type: 'text', text: UNTRUSTED_NOTICE }, { type: 'text', text: fenced(result) }],
    structuredContent: result,
    _meta: { 'pmail/untrusted_content': true },
  };
}

async function invokeGroup(
  groups: McpGroups,
  c: HttpCall,
  authorization: string,
  name?: keyof McpGroups,
): Promise<InvokeResult> {
  const headers: Record<string, string> = { authorization, 'content-type': 'application/json' };
  if (c.key !== undefined) headers['idempotency-key'] = c.key;
  const group = groups[name ?? (c.path === '/v1/events' ? 'events' : 'messages')];
  const query = c.query && Object.keys(c.query).length ? c.query : undefined;
  const res = await group({
    version: '2.0',
    routeKey: '$default',
    rawPath: c.path,
    rawQueryString: new URLSearchParams(query ?? {}).toString(),
    headers,
    queryStringParameters: query,
    requestContext: { http: { method: c.method, path: c.path } },
    body: c.body === undefined ? undefined : JSON.stringify(c.body),
    isBase64Encoded: false,
  } as unknown as ApiEvent);
  return { status: res.statusCode ?? 200, body: res.body ? JSON.parse(res.body) : {} };
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ── wait_for_message ────────────────────────────────────────────────────────────────────────────
// A poll inside the function: API Gateway HTTP APIs and Lambda hold no open connection to push
// mail down, so the tool reads on from `after` (GET …/messages?direction=inbound&after=) with a
// short back-off until a message is there or the timeout (docs/guides/mcp.md › Waiting for an answer).

/** How many new messages one answer of wait_for_message carries at most, each read in full. */
const WAIT_MESSAGES = 10;

function waitForMessageTool(): ToolSpec {
  return {
    permission: 'messages:read',
    outside: MESSAGES,
    description: `Wait for new inbound email of an identity (optionally of one thread): answers as soon as a message arrives after 'after', or with an empty 'data' at the timeout (default ${WAIT_DEFAULT_SECONDS} s, at most ${WAIT_MAX_SECONDS} s). Pass the answer's 'after' to the next call so no message is missed or given twice; without 'after', mail stored from the call on counts as new.`,
    input: {
      identity_id: identityId,
      thread_id: z.string().optional().describe('Only messages of this thread (thr_…).'),
      after: z
        .string()
        .optional()
        .describe('A message id, or `after` from a previous answer: only messages written after it.'),
      timeout_seconds: z.number().int().min(1).max(WAIT_MAX_SECONDS).optional(),
    },
    call: () => {
      throw new Error('wait_for_message runs its own calls');
    },
    run: waitForMessage,
  };
}

async function waitForMessage(
  invoke: Invoke,
  a: Record<string, any>,
  identity: string,
  wait: WaitPorts,
): Promise<InvokeResult> {
  const deadline = wait.clock() + (a.timeout_seconds ?? WAIT_DEFAULT_SECONDS) * 1000;
  const path = `/v1/identities/${enc(identity)}/messages`;
  let after: string = a.after ?? encodeFollowCursor(FOLLOW_HEAD);
  for (let n = 0; ; n++) {
    const query = { direction: 'inbound', after, limit: String(WAIT_MESSAGES), ...pick(a, ['thread_id']) };
    const page = await invoke({ method: 'GET', path, query: query as Record<string, string> });
    if (page.status >= 400) return page;
    after = page.body.after;
    if (page.body.data.length > 0) {
      const full = await Promise.all(
        page.body.data.map((m: { id: string }) => invoke({ method: 'GET', path: msgPath(identity, m.id) })),
      );
      const failed = full.find((r) => r.status >= 400);
      if (failed) return failed;
      return { status: 200, body: { data: full.map((r) => r.body), after, timed_out: false } };
    }
    const left = deadline - wait.clock();
    if (left <= 0) return { status: 200, body: { data: [], after, timed_out: true } };
    await wait.sleep(Math.min(waitBackoffMs(n), left));
  }
}

/** A send's result, or one of a batch's, that waits for a person's approval. */
function pendingApproval(doc: { status?: unknown; data?: unknown } | undefined): boolean {
  if (doc?.status === 'pending_approval') return true;
  const items = Array.isArray(doc?.data) ? (doc.data as { message?: { status?: unknown } }[]) : [];
  return items.some((d) => d?.message?.status === 'pending_approval');
}

/**
 * The reply-attempt state beside each message's status (`attempt: { status, error_code }`), in a
 * message, a page of them, or a batch's results (`data[].message`).
 */
function withAttempt(doc: any, operation?: SendOperationName): any {
  const one = (m: any): unknown => {
    if (m && typeof m.status === 'number' && m.message) return { ...m, message: one(m.message) };
    if (!m || typeof m.status !== 'string' || m.direction !== 'outbound') return m;
    const state = attemptStateOf(m.status);
    return {
      ...m,
      attempt: {
        status: state,
        error_code: state === 'uncertain' ? uncertainCodeOf(operation, m.in_reply_to) : null,
      },
    };
  };
  if (Array.isArray(doc?.messages)) return { ...doc, messages: doc.messages.map(one) };
  return Array.isArray(doc?.data) ? { ...doc, data: doc.data.map(one) } : one(doc);
}

const errorResult = (envelope: unknown): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: tagFreeJson(envelope) }],
  structuredContent: envelope as Record<string, unknown>,
});

function envelopeOf(err: PmailError) {
  return { error: { code: err.code, message: err.message, retryable: false, details: err.details ?? {} } };
}

function toRequest(event: ApiEvent): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers.set(k, v);
  const host = event.requestContext.domainName ?? 'localhost';
  const body = event.body
    ? event.isBase64Encoded
      ? Buffer.from(event.body, 'base64').toString('utf8')
      : event.body
    : undefined;
  return new Request(`https://${host}${event.rawPath}`, {
    method: event.requestContext.http.method,
    headers,
    body,
  });
}
