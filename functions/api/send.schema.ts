import { z } from 'zod';

/**
 * The body of POST /v1/identities/{id}/messages (DESIGN § 3a). Strict: an unknown field is a 400,
 * so a field pmail does not implement yet (thread_id, headers, send_at, marketing) is refused
 * rather than silently ignored. openapi.yaml describes the same shape (test/unit/openapi.test.ts).
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

export const sendBodySchema = z
  .strictObject({
    to: z.array(recipient).max(100).optional(),
    cc: z.array(recipient).max(100).optional(),
    bcc: z.array(recipient).max(100).optional(),
    subject: z.string().max(998).default(''),
    text: z.string().optional(),
    html: z.string().optional(),
    attachments: z.array(attachmentSchema).max(32).optional(),
    kind: z.literal('transactional').default('transactional'),
    from_address: z.string().max(320).optional(),
    labels: z.array(z.string().min(1).max(64)).max(20).optional(),
    metadata: z
      .record(z.string().max(64), z.string().max(512))
      .refine((m) => Object.keys(m).length <= 20, 'at most 20 keys')
      .optional(),
  })
  .refine((b) => b.text !== undefined || b.html !== undefined, {
    message: 'text or html is required',
    path: ['text'],
  });

export type SendBody = z.output<typeof sendBodySchema>;

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
