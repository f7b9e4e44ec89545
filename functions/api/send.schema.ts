import { z } from 'zod';

/**
 * The bodies of send, reply, reply-all and forward (DESIGN § 3a). Strict: an unknown field is a 400,
 * so a field pmail does not implement is refused rather than silently ignored.
 * openapi.yaml describes the same shapes (test/unit/openapi.test.ts).
 */
const recipient = z.union([
  z.string().min(3).max(320),
  z.strictObject({ address: z.string().min(3).max(320), name: z.string().max(256).optional() }),
]);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export const attachmentSchema = z
  .strictObject({
    filename: z
      .string()
      .min(1)
      .refine((s) => Buffer.byteLength(s) <= 255, 'at most 255 bytes')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters
      .refine((s) => !/[\x00-\x1f\x7f/\\]/.test(s), 'no path separators or control characters'),
    content_type: z
      .string()
      .regex(/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i, 'type/subtype'),
    content_base64: z
      .string()
      .transform((s) => s.replace(/\s+/g, ''))
      .refine((s) => s.length % 4 === 0 && BASE64.test(s), 'not valid base64'),
    disposition: z.enum(['attachment', 'inline']).optional(),
    content_id: z.string().min(1).max(250).optional(),
  })
  .refine((a) => a.disposition !== 'inline' || a.content_id, {
    message: 'an inline attachment needs content_id',
    path: ['content_id'],
  });

const labels = z.array(z.string().min(1).max(64)).max(20);
const metadata = z
  .record(z.string().max(64), z.string().max(512))
  .refine((m) => Object.keys(m).length <= 20, 'at most 20 keys');
const headers = z.record(z.string().min(1).max(200), z.string());
const kind = z.enum(['transactional', 'marketing', 'auto_reply']).default('transactional');
const unsubscribe = z.strictObject({ url: z.string().max(2048), mailto: z.string().max(320).optional() });
const consent = z.strictObject({
  basis: z.string().min(1).max(64),
  recorded_at: z.iso.datetime().optional(),
});

/** A scheduled send: RFC 3339 with an offset; "future, at most 30 days ahead" is checked at submit. */
const sendAt = z.iso.datetime({ offset: true }).optional();

const textOrHtml = {
  message: 'text or html is required',
  path: ['text'],
};
const hasBody = (b: { text?: string; html?: string }) => b.text !== undefined || b.html !== undefined;

/** What reply and reply-all take (seed 000: text, html, attachments, kind, labels, headers, metadata). */
const replyFields = {
  text: z.string().optional(),
  html: z.string().optional(),
  attachments: z.array(attachmentSchema).max(32).optional(),
  kind,
  labels: labels.optional(),
  headers: headers.optional(),
  metadata: metadata.optional(),
  send_at: sendAt,
};

const recipientFields = {
  to: z.array(recipient).max(100).optional(),
  cc: z.array(recipient).max(100).optional(),
  bcc: z.array(recipient).max(100).optional(),
};

/** POST …/messages (operation `send`). */
export const sendBodySchema = z
  .strictObject({
    ...recipientFields,
    subject: z.string().max(998).default(''),
    ...replyFields,
    unsubscribe: unsubscribe.optional(),
    consent: consent.optional(),
    thread_id: z.string().max(40).optional(),
    from_address: z.string().max(320).optional(),
  })
  .refine(hasBody, textOrHtml);

/** POST …/reply and …/reply-all. */
export const replyBodySchema = z.strictObject(replyFields).refine(hasBody, textOrHtml);

/** POST …/forward: the reply fields plus recipients and include_attachments. */
export const forwardBodySchema = z
  .strictObject({ ...recipientFields, ...replyFields, include_attachments: z.boolean().default(true) })
  .refine(hasBody, textOrHtml);

export type SendBody = z.output<typeof sendBodySchema>;
export type ReplyBody = z.output<typeof replyBodySchema>;
export type ForwardBody = z.output<typeof forwardBodySchema>;
/** The fields any operation may carry, as the submit path reads them. */
export type AnyBody = Partial<SendBody> & Partial<ForwardBody> & Pick<SendBody, 'kind'>;

/** POST …/messages/{id}/resolve (DESIGN § 8). */
export const resolveBodySchema = z.strictObject({ outcome: z.enum(['sent', 'not_sent']) });

export const listQuerySchema = z.strictObject({
  direction: z.enum(['inbound', 'outbound']).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(200).optional(),
});

export function zodErrors(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({
    path: i.path
      .map((p, n) => (typeof p === 'number' ? `[${p}]` : `${n > 0 ? '.' : ''}${String(p)}`))
      .join(''),
    message: i.message,
  }));
}
