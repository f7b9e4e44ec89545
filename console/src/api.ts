/**
 * The console's one door to the pmail API: the same routes every client calls, with the key the
 * person typed. The key lives in this tab's sessionStorage only (never a URL, a cookie or a log).
 * Kept to one small module so the typed client (`@pmail/client`) can take its place.
 */
import type { Highlight } from './search.tsx';

const KEY = 'pmail.console.apiKey';

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  signIn: (key: string) => sessionStorage.setItem(KEY, key),
  // Signing out forgets everything the tab kept: the key and the identity the pages opened on.
  signOut: () => sessionStorage.clear(),
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface CallOptions {
  body?: unknown;
  query?: Record<string, string | undefined>;
}

async function request(method: string, path: string, opts: CallOptions): Promise<Response> {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined && v !== '') query.set(k, v);
  const headers: Record<string, string> = { authorization: `Bearer ${session.key() ?? ''}` };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  // A fresh key per action: a resend of this request (by the browser or a proxy) is answered once.
  if (method === 'POST') headers['idempotency-key'] = crypto.randomUUID();
  const res = await fetch(`${path}${query.size ? `?${query}` : ''}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    credentials: 'omit',
    cache: 'no-store',
  });
  if (!res.ok) {
    const text = await res.text();
    const e = (text.startsWith('{') ? JSON.parse(text) : {})?.error ?? {};
    throw new ApiError(res.status, e.code ?? 'error', e.message ?? `HTTP ${res.status}`);
  }
  return res;
}

export async function api<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const text = await (await request(method, path, opts)).text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A GET whose answer is not JSON (a message's stored original), as text. */
export async function apiText(path: string): Promise<string> {
  return (await request('GET', path, {})).text();
}

export interface Me {
  key_id: string;
  name: string | null;
  level: 'platform' | 'tenant' | 'identity';
  mode: string | null;
  tenant_id: string | null;
  identity_id: string | null;
  permissions: string[];
}

export interface Identity {
  id: string;
  username: string;
  primary_address: string;
}

export interface Delivery {
  address: string;
  field: string;
  status: string;
  smtp_code: number | null;
  enhanced_code: string | null;
  smtp_response: string | null;
  bounce_type: string | null;
  updated_at: string | null;
}

export interface Mailbox {
  address: string;
  name?: string | null;
}

export interface Attachment {
  id: string;
  filename: string | null;
  content_type: string;
  size: number;
  content_id: string | null;
  risky: boolean;
  risk: string | null;
}

export interface Message {
  id: string;
  thread_id: string;
  identity_id: string;
  direction: 'inbound' | 'outbound';
  status: string;
  status_reason: string | null;
  from: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  reply_to: Mailbox[];
  subject: string;
  /** The body, both directions (openapi.yaml › Message): a list page leaves text, html and extracted_text null. */
  text: string | null;
  html: string | null;
  extracted_text: string | null;
  snippet: string | null;
  attachments: Attachment[];
  /** Its own labels (docs/guides/receiving.md › Labels). */
  labels?: string[];
  /** Where a search (`q`) found it, on a list's hits. */
  highlight?: Highlight;
  body_truncated: boolean;
  body_withheld: string | null;
  body_omitted: boolean;
  received_at: string;
  sent_at: string | null;
  send_at: string | null;
  unless_reply: boolean | null;
  kind: string;
  rfc_message_id: string | null;
  in_reply_to: string | null;
  provider: string | null;
  provider_message_id: string | null;
  deliveries?: Delivery[];
  /** A received message's receipt (null on an outbound one). */
  inbound?: Inbound | null;
}

/** What the API keeps of a received message's receipt (openapi.yaml › Message.inbound). */
export interface Inbound {
  verdicts: Record<'spf' | 'dkim' | 'dmarc' | 'spam' | 'virus', string | null>;
}

export interface EventView {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown> & { message_id?: string };
}

/** Every event of the tenant, oldest first, up to `maxPages` pages of 100. */
export async function allEvents(maxPages = 20): Promise<EventView[]> {
  const out: EventView[] = [];
  let after: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const page = await api<Page<EventView>>('GET', '/v1/events', { query: { limit: '100', after } });
    out.push(...page.data);
    if (!page.next_cursor) break;
    after = page.next_cursor;
  }
  return out;
}

/** The identities this key reaches: its own, or its tenant's. */
export async function identitiesOf(me: Me): Promise<Identity[]> {
  if (me.identity_id) {
    const one = await api<Identity>('GET', `/v1/identities/${me.identity_id}`).catch(() => undefined);
    return [one ?? { id: me.identity_id, username: me.identity_id, primary_address: me.identity_id }];
  }
  if (!me.tenant_id) return [];
  const page = await api<Page<Identity>>('GET', `/v1/tenants/${me.tenant_id}/identities`, {
    query: { limit: '100' },
  }).catch(() => ({ data: [] as Identity[], next_cursor: null }));
  return page.data;
}
