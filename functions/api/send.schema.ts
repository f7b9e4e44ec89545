import * as z from 'zod';
import type { Operation } from '../core/compose.ts';
import { invalidJson, invalidRequest } from '../core/errors.ts';
import {
  BASE64_PATTERN,
  MAX_ADDRESS_CHARS,
  MAX_ATTACHMENTS,
  MAX_CONTENT_ID_CHARS,
  MAX_DISPLAY_NAME_CHARS,
  MAX_FILENAME_BYTES,
  MAX_LABEL_CHARS,
  MAX_LABELS,
  MAX_METADATA_KEY_CHARS,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_CHARS,
  MAX_RECIPIENTS_PER_FIELD,
  MAX_SUBJECT_CHARS,
  MAX_THREAD_ID_CHARS,
  MAX_UNSUBSCRIBE_URL_CHARS,
  TEMPLATE_NAME_PATTERN,
} from '../core/limits.ts';
import type { ParsedSend, SendCommand } from '../core/send-command.ts';
import { unlessReplyErrors } from '../core/unless-reply.ts';

/**
 * The bodies of send, reply, reply-all and forward (openapi.yaml). Strict: an unknown field is a 400,
 * so a field pmail does not implement is refused rather than silently ignored.
 * openapi.yaml describes the same shapes (test/unit/openapi.test.ts).
 */
/**
 * A header's text (a subject, a display name) is one line: RFC 5322 has no CR or LF in an
 * unstructured field or a phrase, so one in the request is refused with its field named rather
 * than changed. Also used by the identity's display_name in the control plane.
 */
export const oneLine = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !/[\r\n]/.test(s), 'must not contain CR or LF');

const recipient = z.union([
  z.string().min(3).max(MAX_ADDRESS_CHARS),
  z.strictObject({
    address: z.string().min(3).max(MAX_ADDRESS_CHARS),
    name: oneLine(MAX_DISPLAY_NAME_CHARS).optional(),
  }),
]);

export const attachmentSchema = z
  .strictObject({
    filename: z
      .string()
      .min(1)
      .refine((s) => Buffer.byteLength(s) <= MAX_FILENAME_BYTES, `at most ${MAX_FILENAME_BYTES} bytes`)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters
      .refine((s) => !/[\x00-\x1f\x7f/\\]/.test(s), 'no path separators or control characters'),
    content_type: z
      .string()
      .regex(/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i, 'type/subtype'),
    content_base64: z
      .string()
      .transform((s) => s.replace(/\s+/g, ''))
      .refine((s) => s.length % 4 === 0 && BASE64_PATTERN.test(s), 'not valid base64'),
    disposition: z.enum(['attachment', 'inline']).optional(),
    content_id: z.string().min(1).max(MAX_CONTENT_ID_CHARS).optional(),
  })
  .refine((a) => a.disposition !== 'inline' || a.content_id, {
    message: 'an inline attachment needs content_id',
    path: ['content_id'],
  });

const labels = z.array(z.string().min(1).max(MAX_LABEL_CHARS)).max(MAX_LABELS);
const metadata = z
  .record(z.string().max(MAX_METADATA_KEY_CHARS), z.string().max(MAX_METADATA_VALUE_CHARS))
  .refine((m) => Object.keys(m).length <= MAX_METADATA_KEYS, `at most ${MAX_METADATA_KEYS} keys`);
const headers = z.record(z.string().min(1).max(200), z.string());
const kind = z.enum(['transactional', 'marketing', 'auto_reply']).default('transactional');
const unsubscribe = z.strictObject({
  url: z.string().max(MAX_UNSUBSCRIBE_URL_CHARS),
  mailto: z.string().max(MAX_ADDRESS_CHARS).optional(),
});
const consent = z.strictObject({
  basis: z.string().min(1).max(64),
  recorded_at: z.iso.datetime().optional(),
});

/** A scheduled send: RFC 3339 with an offset; "future, at most 30 days ahead" is checked at submit. */
const sendAt = z.iso.datetime({ offset: true }).optional();

const textOrHtml = {
  message: 'text, html or template is required',
  path: ['text'],
};
const hasBody = (b: { text?: string; html?: string; template?: string }) =>
  b.text !== undefined || b.html !== undefined || b.template !== undefined;

/**
 * A send by template: the template's name and its variables instead of subject, text and
 * html; the template also gives the kind. functions/send/template.ts checks the variables against
 * the template's schema and renders it.
 */
const templateFields = {
  template: z.string().regex(TEMPLATE_NAME_PATTERN).optional(),
  variables: z.record(z.string(), z.unknown()).optional(),
};
/** Fields a template gives, so a send by template may not: 400 with each one named. */
const TEMPLATE_GIVES = ['subject', 'text', 'html', 'kind'] as const;

/** What reply and reply-all take (text, html, attachments, kind, labels, headers, metadata). */
const replyFields = {
  text: z.string().optional(),
  html: z.string().optional(),
  attachments: z.array(attachmentSchema).max(MAX_ATTACHMENTS).optional(),
  kind,
  labels: labels.optional(),
  headers: headers.optional(),
  metadata: metadata.optional(),
  send_at: sendAt,
  unless_reply: z.boolean().optional(),
  ...templateFields,
};

const recipientFields = {
  to: z.array(recipient).max(MAX_RECIPIENTS_PER_FIELD).optional(),
  cc: z.array(recipient).max(MAX_RECIPIENTS_PER_FIELD).optional(),
  bcc: z.array(recipient).max(MAX_RECIPIENTS_PER_FIELD).optional(),
};

/** POST …/messages (operation `send`). */
export const sendBodySchema = z
  .strictObject({
    ...recipientFields,
    subject: oneLine(MAX_SUBJECT_CHARS).default(''),
    ...replyFields,
    unsubscribe: unsubscribe.optional(),
    consent: consent.optional(),
    thread_id: z.string().max(MAX_THREAD_ID_CHARS).optional(),
    from_address: z.string().max(MAX_ADDRESS_CHARS).optional(),
  })
  .refine(hasBody, textOrHtml);

/** POST …/reply and …/reply-all. */
export const replyBodySchema = z.strictObject(replyFields).refine(hasBody, textOrHtml);

/** POST …/forward: the reply fields plus recipients and include_attachments. */
export const forwardBodySchema = z
  .strictObject({ ...recipientFields, ...replyFields, include_attachments: z.boolean().default(true) })
  .refine(hasBody, textOrHtml);

// Compile-time: each schema's output is a SendCommand (core's type, what the use case reads).
type Is<T extends SendCommand> = T;
export type SendBody = Is<z.output<typeof sendBodySchema>>;
export type ReplyBody = Is<z.output<typeof replyBodySchema>>;
export type ForwardBody = Is<z.output<typeof forwardBodySchema>>;

/** The operations whose bodies these schemas parse. */
export type SendOperation = Operation;

const SEND_SCHEMAS: Record<SendOperation, z.ZodType<SendCommand>> = {
  send: sendBodySchema as z.ZodType<SendCommand>,
  reply: replyBodySchema as z.ZodType<SendCommand>,
  reply_all: replyBodySchema as z.ZodType<SendCommand>,
  forward: forwardBodySchema as z.ZodType<SendCommand>,
};

/**
 * The body of a send, JSON matching the operation's schema, or 400 invalid_request with every
 * field error listed. Its size (7 MiB, 413 payload_too_large) is checked where every route reads
 * its body: api/http.ts › bodyOf.
 */
export function parseSendBody(operation: SendOperation, text: string): ParsedSend {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalidJson();
  }
  const parsed = SEND_SCHEMAS[operation].safeParse(raw);
  if (!parsed.success) {
    throw invalidRequest(zodErrors(parsed.error));
  }
  // Checked on the body as received: subject and kind have defaults once parsed.
  const given = raw as Record<string, unknown>;
  const errors =
    given.template !== undefined
      ? TEMPLATE_GIVES.filter((f) => f in given).map((f) => ({
          path: f,
          message: 'not allowed with template: the template gives it',
        }))
      : given.variables !== undefined
        ? [{ path: 'variables', message: 'only with template' }]
        : [];
  errors.push(...unlessReplyErrors(operation, parsed.data));
  if (errors.length > 0) {
    throw invalidRequest(errors);
  }
  return { raw, body: parsed.data };
}

export function zodErrors(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({
    path: i.path
      .map((p, n) => (typeof p === 'number' ? `[${p}]` : `${n > 0 ? '.' : ''}${String(p)}`))
      .join(''),
    message: i.message,
  }));
}
