import type { Mailbox } from './model.ts';
import type { Recipient } from './recipients.ts';

/**
 * seed 000 › Composition, the part the walking skeleton needs: text derived from HTML when missing,
 * the display name rule, an explicit Message-ID and Date, and no Bcc in the stored copy. Pure: the
 * MIME bytes are built from this plan by functions/send/mime.ts (nodemailer's composer).
 */
export interface AttachmentInput {
  filename: string;
  content_type: string;
  content_base64: string;
  disposition?: 'attachment' | 'inline';
  content_id?: string;
}

export interface ComposePlan {
  messageId: string;
  date: Date;
  from: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  subject: string;
  text?: string;
  html?: string;
  headers: Record<string, string>;
  attachments: AttachmentInput[];
}

export function composePlan(input: {
  rfcMessageId: string;
  now: number;
  from: Mailbox;
  recipients: Recipient[];
  subject: string;
  text?: string;
  html?: string;
  attachments?: AttachmentInput[];
  hop: number;
}): ComposePlan {
  const pick = (field: Recipient['field']) =>
    input.recipients.filter((r) => r.field === field).map(({ address, name }) => ({ address, name }));
  return {
    messageId: input.rfcMessageId,
    date: new Date(input.now),
    from: { address: input.from.address, name: displayName(input.from.name) },
    to: pick('to'),
    cc: pick('cc'),
    subject: input.subject,
    text: input.text ?? (input.html !== undefined ? htmlToText(input.html) : undefined),
    html: input.html,
    headers: { 'X-Pmail-Hop': String(input.hop) },
    attachments: input.attachments ?? [],
  };
}

/** Display name = identities.display_name, ≤ 78 characters, no CR/LF. */
export function displayName(name: string | undefined): string | undefined {
  const n = name
    ?.replace(/[\r\n]+/g, ' ')
    .trim()
    .slice(0, 78);
  return n || undefined;
}

/** `<{message ulid}@{from domain}>` — the Message-ID pmail composes (seed 000 › Message-ID). */
export function rfcMessageIdFor(messageUlid: string, fromAddress: string): string {
  return `<${messageUlid}@${fromAddress.slice(fromAddress.lastIndexOf('@') + 1)}>`;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** A plain-text rendering of HTML for the text part: block ends become new lines, tags go. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|head)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr|blockquote)>/gi, '\n')
    .replace(/<li[^>]*>/gi, '- ')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code =
          e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
        return Number.isFinite(code) ? String.fromCodePoint(code) : m;
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
