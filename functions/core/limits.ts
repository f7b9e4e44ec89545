import { idempotencyKeyRequired, invalidIdempotencyKey } from './errors.ts';

/**
 * The send path's limits, defined once: the request schemas (functions/api/send.schema.ts), the
 * content check of check 12 (compose.ts), the subject rewriting (reply.ts) and the handler's
 * header checks all read these. openapi.yaml states the same numbers (test/unit/openapi.test.ts).
 */

/** The Idempotency-Key header: printable ASCII, 1–255 bytes. The pattern openapi.yaml states. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;
/** The request body, checked before it is parsed. */
export const MAX_BODY_BYTES = 7 * 1024 * 1024;
/**
 * A batch of sends (docs/guides/sending.md › Batches): at most this many messages, this many
 * recipients across them and this many bytes of body. The body and the answer both pass through
 * API Gateway (10 MB) and a synchronous Lambda invocation (6 MB each way, the body escaped inside
 * the event's JSON): 4 MiB of body leaves room for that escaping, and 1,000 recipients bound the
 * answer, whose messages repeat each recipient in `to`/`cc`/`bcc` and in `deliveries`.
 */
export const MAX_BATCH_MESSAGES = 100;
export const MAX_BATCH_RECIPIENTS = 1000;
export const MAX_BATCH_BODY_BYTES = 4 * 1024 * 1024;
/**
 * A batch starts no message after this long (the rest answer `not_attempted`, safe to send
 * again). A message started last may still wait up to 10 s for its thread's lock: the messages
 * function's timeout (BATCH_FUNCTION_TIMEOUT_SECONDS) covers both, inside API Gateway's 30 s.
 */
export const BATCH_TIME_BUDGET_MS = 10_000;
/** The messages function's timeout: a batch's budget, a thread lock's longest wait, and 5 s to answer. */
export const BATCH_FUNCTION_TIMEOUT_SECONDS = 25;
/** How many messages of a batch run at once (a thread's messages run one after another, in order). */
export const BATCH_CONCURRENCY = 8;
/** The composed message: 5 MiB less 8 KiB kept for the headers a transport adds. */
export const MAX_MIME_BYTES = 5_242_880 - 8_192;
/** The longest subject line (RFC 5322 line limit); a prefixed subject is cut here. */
export const MAX_SUBJECT_CHARS = 998;
/** Addresses per recipient field in a request (the per-send limit is the tenant's policy). */
export const MAX_RECIPIENTS_PER_FIELD = 100;
export const MAX_ADDRESS_CHARS = 320;
export const MAX_DISPLAY_NAME_CHARS = 256;
export const MAX_ATTACHMENTS = 32;
export const MAX_FILENAME_BYTES = 255;
export const MAX_CONTENT_ID_CHARS = 250;
export const MAX_LABELS = 20;
export const MAX_LABEL_CHARS = 64;
export const MAX_METADATA_KEYS = 20;
export const MAX_METADATA_KEY_CHARS = 64;
export const MAX_METADATA_VALUE_CHARS = 512;
export const MAX_THREAD_ID_CHARS = 40;
export const MAX_UNSUBSCRIBE_URL_CHARS = 2048;
/** A scheduled send is at most 30 days ahead. */
export const MAX_SCHEDULE_MS = 30 * 24 * 3600 * 1000;
/**
 * Templates: a template's name, its subject/text/HTML sources together, its variables
 * schema, the variables of one send (stored on the message until redaction, so kept small beside
 * the 400 KB item), and how many templates a tenant keeps.
 */
export const TEMPLATE_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const MAX_TEMPLATE_SOURCE_BYTES = 128 * 1024;
export const MAX_TEMPLATE_SCHEMA_BYTES = 16 * 1024;
export const MAX_TEMPLATE_VARIABLES_BYTES = 16 * 1024;
export const MAX_TEMPLATES_PER_TENANT = 100;
export const MAX_TEMPLATE_DESCRIPTION_CHARS = 256;
/** At most this many schema errors are answered for one refused payload. */
export const MAX_PAYLOAD_ERRORS = 20;
/** Standard base64 (whitespace removed first). */
export const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The Idempotency-Key header. `required` (a send) answers 400
 * idempotency_key_required when it is missing; a present key must match IDEMPOTENCY_KEY_PATTERN
 * (400 invalid_idempotency_key). Returns the key, or undefined when it is absent and optional.
 */
export function checkIdempotencyKey(key: string | undefined, required: boolean): string | undefined {
  if (key === undefined) {
    if (required) throw idempotencyKeyRequired();
    return undefined;
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw invalidIdempotencyKey(IDEMPOTENCY_KEY_PATTERN.source);
  }
  return key;
}
