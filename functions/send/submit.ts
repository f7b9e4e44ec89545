import { type SendBody, sendBodySchema, zodErrors } from '../api/send.schema.ts';
import { composePlan, rfcMessageIdFor } from '../core/compose.ts';
import { PmailError } from '../core/errors.ts';
import { sendFingerprint, sendTarget, sha256Hex } from '../core/fingerprint.ts';
import { type ApiMessage, toApiMessage } from '../core/message-view.ts';
import type { Identity, MessageRecord, Tenant } from '../core/model.ts';
import { addressesToLookUp, evaluateSend } from '../core/policy.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import { outboundKey } from '../store/blobs.ts';
import { getAddresses } from '../store/directory.store.ts';
import {
  completeIdempotencyUpdate,
  type Lookup,
  lookupIdempotency,
  releaseIdempotency,
  reserveIdempotency,
} from '../store/idempotency.store.ts';
import { CommitLost, commitAccepted } from '../store/messages.store.ts';
import { peekRate, RL_SEND, takeRate } from '../store/rate-limit.store.ts';
import { executionName } from './dispatcher.ts';
import { buildMime } from './mime.ts';

/** seed 000 › Handler step 3: printable ASCII, 1–255 bytes. The pattern openapi.yaml states. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;
/** seed 000 › Handler step 4. */
export const MAX_BODY_BYTES = 7 * 1024 * 1024;
/** seed 000 › Attachments and size: 5 MiB less 8 KiB kept for the headers a transport adds. */
export const MAX_MIME_BYTES = 5_242_880 - 8_192;

export interface SubmitInput {
  tenant: Tenant;
  identity: Identity;
  idempotencyKey: string | undefined;
  /** The raw request body (the fingerprint hashes its parsed JSON). */
  body: string;
  requestId: string;
}

export interface SubmitResult {
  message: ApiMessage;
  deduplicated: boolean;
}

/**
 * POST /v1/identities/{id}/messages, seed 000 › Handler steps 2–8 for `send`, with the reservation
 * protocol of DESIGN § 5.1. Authentication and the identity's scope (step 1) are the caller's.
 */
export async function submitSend(deps: Deps, input: SubmitInput): Promise<SubmitResult> {
  const { identity, tenant } = input;
  const started = deps.clock();

  // 2. Rate limit — a read here; counted below only for a request that is not a replay.
  const peek = await peekRate(deps.db, identity.id, 'send', RL_SEND, started);
  if (!peek.ok) throw rateLimited(peek.retryAfter);

  // 3. Idempotency-Key
  const key = input.idempotencyKey;
  if (key === undefined) {
    throw new PmailError('idempotency_key_required', 'A send needs an Idempotency-Key header.');
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new PmailError(
      'invalid_idempotency_key',
      'The Idempotency-Key must be 1–255 printable ASCII characters.',
      {
        details: { pattern: '^[\\x20-\\x7E]{1,255}$' },
      },
    );
  }

  // 4. Body
  if (Buffer.byteLength(input.body) > MAX_BODY_BYTES) {
    throw new PmailError('payload_too_large', 'The request body is larger than 7 MiB.', {
      details: { max_bytes: MAX_BODY_BYTES },
    });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(input.body);
  } catch {
    throw new PmailError('invalid_request', 'The request body is not valid JSON.', {
      details: { errors: [{ path: '', message: 'not valid JSON' }] },
    });
  }
  const parsed = sendBodySchema.safeParse(raw);
  if (!parsed.success) {
    throw new PmailError('invalid_request', 'The request body is not valid.', {
      details: { errors: zodErrors(parsed.error) },
    });
  }

  // 5. Fingerprint over the body as received.
  const fingerprint = sendFingerprint('send', sendTarget('send', identity.id), raw);
  const keyHash = sha256Hex(key);

  // Reservation step 1: the stored answer wins over everything that follows.
  const seen = await lookupIdempotency(deps.db, identity.id, keyHash, fingerprint, deps.clock());
  if (seen.type !== 'absent') return answerFromLookup(seen);

  const taken = await takeRate(deps.db, identity.id, 'send', RL_SEND, deps.clock());
  if (!taken.ok) throw rateLimited(taken.retryAfter);

  // Reservation step 2.
  const owner = input.requestId;
  const reserved = await reserveIdempotency(deps.db, {
    identityId: identity.id,
    keyHash,
    fingerprint,
    operation: 'send',
    owner,
    now: deps.clock(),
  });
  if (reserved.type !== 'reserved') {
    if (reserved.type === 'absent')
      throw new PmailError('request_in_progress', 'A request with this Idempotency-Key is still running.');
    return answerFromLookup(reserved);
  }

  let message: MessageRecord;
  try {
    message = await acceptSend(deps, { tenant, identity, body: parsed.data, keyHash, fingerprint, owner });
  } catch (err) {
    // Step 5: only accepted sends are recorded; give the key back so a retry re-evaluates.
    await releaseIdempotency(deps.db, identity.id, keyHash, owner).catch((e) =>
      deps.log.error('idempotency release failed', { identity_id: identity.id, ...errorFields(e) }),
    );
    if (err instanceof CommitLost) {
      const after = await lookupIdempotency(deps.db, identity.id, keyHash, fingerprint, deps.clock());
      if (after.type !== 'absent') return answerFromLookup(after);
      throw new PmailError('request_in_progress', 'Another request with this Idempotency-Key is running.');
    }
    throw err;
  }

  // 6. After commit: start the execution the message names. If that fails the message stays
  // queued and the sweeper dispatches it (DESIGN § 5.1 step 6).
  try {
    await deps.dispatcher.start(message.dispatch!.execution, {
      tenant_id: tenant.id,
      identity_id: identity.id,
      message_id: message.id,
    });
  } catch (err) {
    deps.log.error('dispatch failed; the sweeper will retry', {
      message_id: message.id,
      ...errorFields(err),
    });
  }
  return { message: toApiMessage(message), deduplicated: false };
}

function rateLimited(retryAfter: number): PmailError {
  return new PmailError(
    'rate_limited',
    'Too many sends for this identity; wait and retry with the same key.',
    {
      retryAfter,
      details: { retry_after: retryAfter },
    },
  );
}

function answerFromLookup(lookup: Exclude<Lookup, { type: 'absent' }>): SubmitResult {
  switch (lookup.type) {
    case 'replay':
      return { message: JSON.parse(lookup.response) as ApiMessage, deduplicated: true };
    case 'conflict':
      throw new PmailError('idempotency_conflict', 'This Idempotency-Key was used for a different request.', {
        details: lookup.message_id ? { original_message_id: lookup.message_id } : {},
      });
    case 'in_progress':
      throw new PmailError('request_in_progress', 'A request with this Idempotency-Key is still running.');
  }
}

/** Reservation steps 3–4: policy, composition (the .eml before the transaction), the transaction. */
async function acceptSend(
  deps: Deps,
  args: {
    tenant: Tenant;
    identity: Identity;
    body: SendBody;
    keyHash: string;
    fingerprint: string;
    owner: string;
  },
): Promise<MessageRecord> {
  const { tenant, identity, body } = args;
  const addresses = await getAddresses(deps.db, addressesToLookUp(body));
  const plan = evaluateSend({ tenant, identity, addresses }, body);

  const now = deps.clock();
  const ulid = deps.newId();
  const messageId = `msg_${ulid}`;
  const rfcMessageId = rfcMessageIdFor(ulid, plan.from.address);
  const mime = await buildMime(
    composePlan({
      rfcMessageId,
      now,
      from: plan.from,
      recipients: plan.recipients,
      subject: body.subject,
      text: body.text,
      html: body.html,
      attachments: body.attachments,
      hop: 1,
    }),
  );
  if (mime.length > MAX_MIME_BYTES) {
    throw new PmailError('message_too_large', 'The composed message is larger than the transport limit.', {
      details: { size_bytes: mime.length, max_bytes: MAX_MIME_BYTES },
    });
  }
  const rawKey = outboundKey(tenant.id, identity.id, messageId);
  await deps.blobs.put(rawKey, mime, {
    tenant: tenant.id,
    identity: identity.id,
    message: messageId,
    idem_key_sha256: args.keyHash,
    fingerprint: args.fingerprint,
    operation: 'send',
  });

  const byField = (f: 'to' | 'cc' | 'bcc') =>
    plan.recipients
      .filter((r) => r.field === f)
      .map(({ address, name }) => (name ? { address, name } : { address }));
  const message: MessageRecord = {
    id: messageId,
    tenant_id: tenant.id,
    identity_id: identity.id,
    thread_id: `thr_${deps.newId()}`,
    direction: 'outbound',
    status: 'queued',
    operation: 'send',
    from: plan.from,
    to: byField('to'),
    cc: byField('cc'),
    bcc: byField('bcc'),
    reply_to: [],
    subject: body.subject,
    kind: body.kind,
    labels: body.labels ?? [],
    metadata: body.metadata,
    flags: [],
    rfc_message_id: rfcMessageId,
    raw_key: rawKey,
    raw_size: mime.length,
    created_at: now,
    updated_at: now,
    version: 1,
    deliveries: plan.recipients.map((r) => ({
      address: r.address,
      field: r.field,
      status: 'queued',
      updated_at: now,
    })),
    // DESIGN § 6: the execution coming for this message is named in the write that queues it.
    dispatch: { execution: executionName(messageId, 1), at: now, n: 1 },
  };
  const response = JSON.stringify(toApiMessage(message));
  await commitAccepted(deps.db, message, [
    completeIdempotencyUpdate(deps.db, {
      identityId: identity.id,
      keyHash: args.keyHash,
      owner: args.owner,
      messageId,
      response,
      now,
    }),
  ]);
  return message;
}
