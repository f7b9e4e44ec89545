// Generated from openapi.yaml by `npm run generate -w @pmail/client`. Do not edit.

export interface paths {
    "/v1/identities/{identity_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        /**
         * Get an identity
         * @description The identity with its status and, when paused, why (`manual` or `abuse_threshold`).
         *     Needs the `identities:read` permission.
         */
        get: operations["getIdentity"];
        put?: never;
        post?: never;
        /**
         * Delete an identity
         * @description The identity becomes `deleted`: its addresses are retired for good (never given to another identity), every identity key of it is revoked (`401 key_revoked`), and every later call naming it answers `404 identity_not_found`. Writes `identity.delete`. Needs `identities:write` on a platform or tenant key.
         */
        delete: operations["deleteIdentity"];
        options?: never;
        head?: never;
        /**
         * Change, pause or resume an identity
         * @description Changes `display_name`, `owner` (`null` clears it: an identity without an owner cannot
         *     send), `send_policy` and `metadata` (writes `identity.update`), then the status.
         *     `status: "paused"` stops the identity's sends (`409 identity_paused`, and queued messages
         *     are canceled at claim time); `status: "active"` resumes it. A change emits
         *     `identity.paused` (reason `manual`) or `identity.resumed` and writes an audit entry, in
         *     one write with the status; setting the status the identity already has changes and emits
         *     nothing. Who may change what (docs/security.md): `display_name`, `owner`, `send_policy`,
         *     `metadata` and `status: "active"` need `identities:write` on a platform or tenant key;
         *     `status: "paused"` alone is allowed to any key of the identity holding `identities:write`
         *     or `messages:send`. An identity key, whatever it holds, never changes its identity's
         *     guardrails and never resumes it, so an agent cannot lift a pause a person or its own
         *     complaints caused; an identity paused by the abuse threshold keeps its outcome window, so
         *     further complaints pause it again.
         */
        patch: operations["updateIdentity"];
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        /**
         * List messages
         * @description The identity's messages, newest first, one page at a time, those the filters select
         *     (`label`, `from`, `to`, `subject`, `since`, `until`, `has_attachment`, with `direction` and
         *     `status`; docs/design/search.md › Filters). A filtered page reads at most 500 messages: it
         *     may hold fewer than `limit`, even none, with a `next_cursor` to go on. Pass `next_cursor` from a page
         *     as `cursor` to get the next one; `next_cursor` is null on the last page. Needs the
         *     `messages:read` permission. A query parameter not listed here is refused with 400
         *     `invalid_request`.
         *
         *     With `after` (a message id, or the `after` of a previous answer) the list reads on
         *     instead: the messages committed after that position, **in commit order**, and `after` in
         *     the answer is where to read on from next time (docs/guides/receiving.md › Reading on).
         *     Passing that cursor back gives every message once, as soon as it is committed, however
         *     long after its id was minted (docs/design/ordering.md); `next_cursor` is the same cursor
         *     while more messages are waiting now, else null. `thread_id` narrows a read on to one
         *     thread.
         *
         *     With `q` the page is search results (docs/guides/receiving.md › Search): a ranking
         *     newest first by message id, not a feed (to follow new mail, read on with `after`, the
         *     stream or `wait_for_message`). A search page reads at most 200 candidate messages: it may
         *     hold fewer than `limit`, with a `next_cursor` to go on.
         */
        get: operations["listMessages"];
        put?: never;
        /**
         * Send a message
         * @description Accepts a message for delivery and answers 202 once it is stored and queued; delivery
         *     happens afterwards and its progress shows in `status` and `deliveries`. Needs the
         *     `messages:send` permission.
         *
         *     When the identity's `send_policy.require_approval` is true, the message is accepted with
         *     status `pending_approval` (this and every send operation, by template or not): stored
         *     with its key, fingerprint and replay like any send, counted against no cap and sent only
         *     once a person approves it (`approveMessage`). A replay of its key answers the message's
         *     current state while and after it waits.
         *
         *     With `thread_id` the message is sent on an existing thread of this identity instead of
         *     starting one: its `In-Reply-To` and `References` follow the thread's latest message, it
         *     keeps the thread's From unless `from_address` says otherwise, and it takes the thread's
         *     lock (see `replyMessage`). The subject is used as given.
         *
         *     Checks run in this order and the first failure answers: authentication, permission,
         *     identity scope, `dry_run`, rate limit (120 sends per minute per identity), Idempotency-Key,
         *     body size (7 MiB) and schema, idempotency lookup (a replay is answered here, before any
         *     policy check), then policy: tenant and identity state, the thread, recipients, recipient
         *     count (the tenant's limit, 10 by default), test-mode recipients, marketing requirements,
         *     automatic replies, custom headers, content, `from_address`, the sending domain and its
         *     transport, the recipient filters (a suppressed or filtered recipient is not an error: its
         *     delivery is `suppressed`), the composed size, the daily caps and the thread lock.
         *     `x-error-codes` lists the codes in that order.
         *
         *     A recipient filtered out becomes a `suppressed` delivery whose `smtp_response` names the
         *     rule (`policy: suppression (hard_bounce)`, `policy: send_block`,
         *     `policy: not_on_allowlist`, `policy: unknown_recipient`). When every recipient is filtered
         *     out the send is still accepted (202) with status `suppressed`, and nothing is sent.
         */
        post: operations["sendMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/batch": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a batch of messages
         * @description Up to 100 new messages in one request, each with its own `idempotency_key` in place of
         *     the Idempotency-Key header. Each message is a single send in full — exactly
         *     `sendMessage` with that key and that body: it is replayed, refused with 409 for another
         *     body under its key or while its key's first request runs, checked against the rate
         *     limit, the caps, approval and every policy, and counted as one send. The answer is 207
         *     with one result per message, in the batch's order: `status` is what `sendMessage` would
         *     have answered for it (202, or an error status), with the `message` (and `deduplicated`)
         *     or the `error`. Sending the same batch again is safe: the messages accepted are replayed,
         *     the others run.
         *
         *     Refused as a whole, before any message runs: an `Idempotency-Key` header, a body above
         *     4 MiB (413, below API Gateway's 10 MB and a Lambda invocation's 6 MB), no messages or more
         *     than 100, more than 1,000 recipients across them, or a message without a valid
         *     `idempotency_key` or with the same one as another message (400, each problem in
         *     `details.errors`).
         *
         *     The messages run a few at a time (a thread's messages one after another, in order). A
         *     message the batch has not started 10 seconds after it began answers 503 `not_attempted`:
         *     nothing of it was done, and sending it again with the same key is safe. Needs the
         *     `messages:send` permission.
         */
        post: operations["sendMessageBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        /**
         * Get a message
         * @description The message in its current state. A held message is found only by a key holding
         *     `messages:hold` (to any other it is `message_not_found`). Needs the `messages:read` permission.
         */
        get: operations["getMessage"];
        put?: never;
        post?: never;
        /**
         * Delete a held message
         * @description Deletes a held message and its raw copy (docs/guides/receiving.md › Held mail). Only held
         *     mail is deleted; any other message answers 409 `message_not_held`. Needs the
         *     `messages:hold` permission.
         */
        delete: operations["deleteMessage"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}/raw": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        /**
         * Get a message's stored original
         * @description The message as pmail stored it, byte for byte: the received message of an inbound one (as
         *     SES, the local MX or loopback handed it over, headers and attachments included), the
         *     composed MIME of an outbound one (what went to the provider; Bcc is never in it). Always
         *     a download. Needs the `messages:read` permission; scoped and answered 404 as `getMessage`.
         */
        get: operations["getMessageRaw"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/threads": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        /**
         * List threads
         * @description The identity's conversations, newest activity first (the time of the latest message
         *     written into each), one page at a time: the messages it sent and received, threaded as
         *     docs/guides/receiving.md › Threading describes. Pass `next_cursor` as `cursor` for the
         *     next page; it is null on the last page. A thread written to while you page may show on two
         *     pages. Needs the `messages:read` permission.
         *
         *     With `q` (docs/guides/receiving.md › Search): the threads holding a matching message,
         *     newest matching message first, each with the `highlight` of its newest matching message;
         *     the other filters apply to the thread. The cursor then goes on below the last message
         *     examined: a thread whose older messages match too may show again on a later page.
         */
        get: operations["listThreads"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/threads/{thread_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The thread (`thr_…`, a message's `thread_id`). An id that is malformed, unknown, or a
                 *     thread of another identity or tenant answers 404 `thread_not_found`, alike.
                 */
                thread_id: string;
            };
            cookie?: never;
        };
        /**
         * Get a thread
         * @description One conversation in one call: its summary and its messages oldest first, sent and received
         *     (the latest 100; `messages_truncated` tells when there are more), each with its text, under a
         *     budget of characters (docs/guides/receiving.md › Reading a thread under a budget).
         *     `max_chars` bounds the characters (Unicode code points) of all the messages' `text`
         *     together: every message whole if that fits; else the oldest trimmed to their
         *     `extracted_text` (what the sender wrote, without quoted history and signature; a sent
         *     message's is its text), oldest first, so the newest stay whole; else the oldest left out
         *     (`text_budget.messages_omitted` says how many); and when the newest message alone, trimmed,
         *     is still over, its extracted text cut to `max_chars` (`text_form: cut`,
         *     `text_budget.newest_cut`). Each message's `text_form` says which it is; HTML and the
         *     extracted text beside the whole text are left out (`body_omitted`): `getMessage` has them.
         *     Needs the `messages:read` permission.
         */
        get: operations["getThread"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}/attachments/{attachment_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
                /** @description The attachment's `id` in the message's `attachments` (`att_1`, `att_2`, …). */
                attachment_id: string;
            };
            cookie?: never;
        };
        /**
         * Download an attachment of a message
         * @description The attachment's bytes, received or sent, read from the stored original. Always a download
         *     (`Content-Disposition: attachment`, never inline), with `X-Content-Type-Options: nosniff`
         *     and a sandboxing Content-Security-Policy. Its declared type, except a `risky` attachment
         *     and a type a browser would run or render (HTML, XHTML, SVG, XML), which come as
         *     `application/octet-stream`. Needs the `messages:read` permission.
         */
        get: operations["getAttachment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a queued message
         * @description Cancels a message that is still `queued` (a scheduled send before its time, or a send
         *     waiting in a back-off) or `undispatched` (held for a transport not configured yet) while no
         *     transport attempt holds it. The message becomes
         *     `canceled`, its thread lock and its count in the day's cap are given back, and
         *     `message.canceled` is emitted. Needs the `messages:send` permission. No body.
         */
        post: operations["cancelMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}/resolve": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resolve an uncertain message
         * @description Settles a message whose transport outcome is unknown (`uncertain`), once you know from
         *     elsewhere. `sent`: the message and its uncertain deliveries become `submitted` and
         *     `message.sent` is emitted with `provider_message_id: null`. `not_sent`: they become
         *     `failed` and `message.failed` is emitted with reason `resolved_not_sent`; you may then
         *     send again with a new Idempotency-Key, while the original key keeps replaying its 202.
         *     Where the deliveries already say what happened (a provider event reported a recipient),
         *     `not_sent` is refused with `not_uncertain`.
         *     Needs the `messages:write` permission. The Idempotency-Key is optional here.
         */
        post: operations["resolveMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry a failed message (operator)
         * @description Queues a `failed` message again when its failure was not a refusal by the recipient's
         *     server: `status_reason` `quota_exhausted` (a back-off reached its 24 hours: rate limits,
         *     provider quota, a paused account, a relay's temporary refusals) or
         *     `domain_failing_no_fallback` (the sending domain was failing when the send was claimed).
         *     The failed deliveries become `queued`, the back-off and its 24 hours start again, and the
         *     execution coming for the message is named in the same conditional write that re-queues it:
         *     two retries racing write once and start exactly one execution. The message is sent with
         *     the MIME stored at submit (the same Message-ID) and is not counted again against the daily
         *     caps. A retry of a message a retry already re-queued answers its current state (200).
         *     Never for a message that is or was `uncertain`: that is `resolve`'s job
         *     (`resolve_required`). Needs the `messages:write` permission. No body.
         */
        post: operations["retryMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a send waiting for a person
         * @description A person's approval of a send waiting in `pending_approval` (the identity's
         *     `send_policy.require_approval`). The checks of a send run again first: the tenant and the
         *     identity (suspended, paused, no accountable owner), the sending domain, the suppressions in force
         *     now (a suppressed recipient's delivery becomes `suppressed`; with every recipient suppressed the
         *     message ends `suppressed`, counted against nothing), then the rate window and the daily caps,
         *     counted now, on the day of the approval. The write that queues the message names its execution
         *     and is conditioned on the message's version, so two approves racing start exactly one
         *     execution and the email is sent once; an approve racing a reject: one wins and the other answers
         *     409 `not_pending_approval` with the message's state. A check that refuses ends the message
         *     `failed` with the refusal's code as `status_reason` (`message.failed`) and answers that refusal,
         *     with the message in `details.message`; a full rate window answers 429 `rate_limited` and leaves
         *     it pending. `message.approved` is emitted. Needs the `messages:approve` permission, which an
         *     identity key holds only when it was created with it. No body.
         */
        post: operations["approveMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}/release": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Release a held message
         * @description A person's release of a received message held back from the agent (`held`: its
         *     `receive_policy`, a receive list, the stranger rate; docs/guides/receiving.md › Held mail).
         *     It becomes an ordinary received message: `message.received` is emitted and it takes a new
         *     position in the identity's feed, after everything committed before, so a reader following
         *     `?after=` or `wait_for_message` gets it as if it had just arrived; its thread and its
         *     sender's contact are counted then. One transaction conditioned on the message's version; a
         *     message released already is answered as it is. Needs the `messages:hold` permission. No body.
         */
        post: operations["releaseMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}/labels": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add and remove labels on a message
         * @description Labels as state on a message (docs/guides/receiving.md › Labels): `add` and `remove` in one
         *     change, answered with the labels after it. Idempotent: adding a label already there or
         *     removing one that is not changes nothing (and emits nothing). Concurrent changes all land
         *     (each is written at the version it read; a change that lost the race reads and applies
         *     again). A label added is 1–64 characters of `A-Z a-z 0-9 . _ : / -`, starting with a
         *     letter or digit, compared exactly; at most 20 per message. The change writes a small labels
         *     item, never the message item nor its `version`, and emits `message.labeled` with `labels`,
         *     `added` and `removed`. Needs the `messages:write` permission.
         */
        post: operations["labelMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/threads/{thread_id}/labels": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /** @description The thread (`thr_…`); one of another identity or tenant answers 404 `thread_not_found`. */
                thread_id: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add and remove labels on a thread
         * @description Labels as state on a thread (docs/guides/receiving.md › Labels): `add` and `remove` in one
         *     change, answered with the labels after it. Idempotent: adding a label already there or
         *     removing one that is not changes nothing (and emits nothing). Concurrent changes all land
         *     (each is written at the version it read; a change that lost the race reads and applies
         *     again). A label added is 1–64 characters of `A-Z a-z 0-9 . _ : / -`, starting with a
         *     letter or digit, compared exactly; at most 20 per thread. The change writes a small labels
         *     item, never the message item nor its `version`, and emits `thread.labeled` with `labels`,
         *     `added` and `removed`. Needs the `messages:write` permission.
         */
        post: operations["labelThread"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/held": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        /**
         * List held messages
         * @description The identity's received messages held back from the agent, newest first, and what it holds
         *     against its caps (docs/guides/receiving.md › Held mail). Held mail is left out of every other
         *     read of a key without `messages:hold`. Needs the `messages:hold` permission.
         */
        get: operations["listHeld"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject a send waiting for a person
         * @description A person's refusal of a send waiting in `pending_approval`: the message ends `canceled` with
         *     `status_reason` `rejected_by_reviewer`, nothing is sent and nothing was counted.
         *     `message.rejected` is emitted. One conditional write of the message: a reject racing an
         *     approve either wins or answers 409 `not_pending_approval` with the state the approve left.
         *     Needs the `messages:approve` permission. No body.
         */
        post: operations["rejectMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}/reply": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reply to a message
         * @description Sends an answer to the message `message_id` (received or sent by this identity) on that
         *     message's thread. The body carries only the answer's content; pmail works out the rest:
         *
         *     - **Recipient.** Answering a received message writes to its sender: to the first
         *       `Reply-To` address when that address can be trusted (the sender is a known sender of
         *       this identity, the Reply-To shares the From's organisational domain, or this identity
         *       has written to that address before), otherwise to the `From`. A Reply-To from a stranger
         *       on an unrelated domain is not followed. Answering a message this identity sent writes
         *       to that message's To and Cc again.
         *     - **Subject.** The original's, with a single `Re: ` in front; none is added when it
         *       already starts with one (`Re:`, `RE:`, `Re[2]:`).
         *     - **Threading.** `In-Reply-To` names the original; `References` carries the thread's
         *       chain ending with it (at most 2,048 bytes; the oldest entries after the first are
         *       dropped).
         *     - **From.** The address the thread already sends from; else, for a received original, the
         *       address of this identity it was written to, or for a sent one, the address it was sent
         *       from; else the primary address.
         *
         *     A reply takes its thread's lock while it is queued, so that a following message on the
         *     thread can name it in `References`. A send on a thread whose lock another message holds
         *     waits up to 10 seconds for it, then answers 409 `thread_busy`; retry with the same
         *     Idempotency-Key after `Retry-After` seconds. A dry run neither takes nor waits for the
         *     lock.
         *
         *     Otherwise it behaves as `sendMessage`: the same Idempotency-Key rules (the key is bound to
         *     this operation and `message_id`), the same checks in the same order, the same 202 and
         *     dry-run answers. Needs the `messages:send` permission.
         */
        post: operations["replyMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}/reply-all": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reply to everyone on a message
         * @description As `replyMessage`, but the answer also goes to everyone the original was addressed to:
         *     To is the reply's recipient (chosen as for `replyMessage`) followed by the original's To,
         *     and Cc is the original's Cc. Every address of this identity is taken out (whatever its
         *     status, with or without a `+tag`), an address listed twice is kept once, and the
         *     original's Bcc is never used, so an answer to a blind copy reveals nobody. When nobody is
         *     left the request is refused with 400 `invalid_request`. Subject, threading, From, the
         *     thread lock and every check are those of `replyMessage`. Needs the `messages:send`
         *     permission.
         */
        post: operations["replyAllMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identities/{identity_id}/messages/{message_id}/forward": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Forward a message
         * @description Sends the message `message_id` (received or sent by this identity) on to new recipients,
         *     on the original's thread.
         *
         *     - **Recipients** are the request's `to`, `cc` and `bcc`, under the same rules as
         *       `sendMessage` (at least one, de-duplicated, counted against the tenant's limit).
         *     - **Subject.** The original's, with a single `Fwd: ` in front; none is added when it
         *       already starts with `Fwd:` or `Fw:`.
         *     - **Body.** The request's text and html, then a forwarded-message block naming the
         *       original's From, Date, Subject, To and Cc, followed by the original's text; in HTML the
         *       original's (sanitised) HTML is quoted in a `<blockquote>`. The identity's signature
         *       follows the block.
         *     - **Attachments.** The original's attachments are attached again, after the request's
         *       own, unless `include_attachments` is `false`. Executables and scripts never are. They
         *       count towards the composed size (413 `message_too_large`).
         *     - **Threading and From** are those of `replyMessage`: `In-Reply-To` names the original,
         *       `References` carries the thread's chain, and the forward takes the thread's lock (409
         *       `thread_busy` after waiting up to 10 seconds).
         *
         *     Every check is that of `sendMessage`, in the same order. Needs the `messages:send`
         *     permission.
         */
        post: operations["forwardMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the tenant's events
         * @description The tenant's events outbox, in the order they were committed: `message.delivered`, `message.deferred`,
         *     `message.bounced`, `message.complained` per recipient, `message.rejected` and
         *     `message.failed` when a message rolls up to them or an attempt ends it (the transport
         *     refused it; the 24-hour end of a back-off), `message.uncertain` (with `reason` and `fix`)
         *     when the outcome of a provider call is unknown, `message.reconciled` when a delivery event
         *     resolves an uncertain send, `message.suppressed`, `message.canceled`, `message.sent` after
         *     a resolve, `message.pending_approval`, `message.approved` and `message.rejected` (a send
         *     waiting for a person's approval, and that person's decision), `suppression.created`, `identity.paused`, `identity.resumed` and
         *     `quota.warning`. Each event has a stable `id`: a provider event applied twice is stored
         *     once. Pass the `id` of the last event seen as `after` to read on: every event takes the
         *     next number of the tenant's feed in the write that commits it, so reading on gives every
         *     event committed after that one, once, as soon as it is committed, however long after its
         *     id (docs/design/ordering.md); `data.occurred_at` of a delivery event is when the provider
         *     saw it happen. Needs the `events:read` permission. A tenant key reads every event of
         *     its tenant; an identity key the events whose `data.identity_id` is one of its identities
         *     (never a tenant-wide one: a suppression, a tenant's quota warning). `identity_id` narrows
         *     the page to one identity's events. The same events are pushed, as they are committed, on
         *     the event stream (`createStreamTicket`, docs/guides/stream.md).
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stream/tickets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get a ticket that opens the event stream
         * @description The event stream is a WebSocket that pushes the key's events as they are committed, in
         *     the order of `GET /v1/events`, resuming after an event id (docs/guides/stream.md). Open it
         *     with `Authorization: Bearer <key>` on the upgrade, or — where no header can be set, as in a
         *     browser — with a ticket from this operation: `{url}?ticket={ticket}`. A ticket opens one
         *     stream, within 60 seconds; it is bound to the calling key (a revoked or expired key's
         *     ticket opens nothing) and to the filter given here, which the URL may repeat but never
         *     change or widen. Only its hash is stored. `url` is the stream's address (the stack output
         *     `StreamUrl`; `stream` in `.pmail/local.json` on `npm start`).
         *
         *     On the stream each event is a text frame `{ "type": "event", "event": <Event> }`; a
         *     heartbeat `{ "type": "heartbeat", "at" }` comes every minute; the last frame before pmail
         *     closes a stream is `{ "type": "close", "code", "reason", "message", "after" }` (`after`:
         *     the last event id sent). Close codes: 4001 `key_revoked`, 4002 `key_expired`, 4008
         *     `slow_consumer`, 4010 `after_too_old`, 4029 `connection_limit`, 1001 `going_away`. Needs
         *     `events:read`; an identity key streams its identities' events only.
         */
        post: operations["createStreamTicket"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the webhook endpoints
         * @description Every endpoint of the key's tenant (at most 20, so one page), newest first, without their
         *     secrets. Needs `webhooks:read` or `webhooks:manage` on a tenant-level key.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Add a webhook endpoint
         * @description Registers an HTTPS endpoint that receives the tenant's events (see `listEvents` for the
         *     types) as signed POSTs, following Standard Webhooks: headers `webhook-id` (the event id,
         *     the same on every retry), `webhook-timestamp` (epoch seconds) and `webhook-signature`
         *     (`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed
         *     with the base64-decoded part of the secret after `whsec_`). The body is the envelope
         *     `{id, type, api_version, occurred_at, tenant_id, identity_id, sequence, data}`.
         *
         *     A 2xx within 15 seconds is a delivery; anything else (a redirect included) is retried
         *     after about 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 12 h, 12 h, 12 h and 19 h
         *     (±10 %), after which the delivery is dead. `410 Gone` disables the endpoint
         *     (`status: disabled`, `disabled_reason: gone`). Delivery is at least once: deduplicate on
         *     `webhook-id`.
         *
         *     The answer carries `secret`, **shown only here**: no other response returns it. A tenant
         *     has at most 20 endpoints. Needs the `webhooks:manage` permission on a tenant-level key.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id. */
                webhook_id: string;
            };
            cookie?: never;
        };
        /**
         * Read a webhook endpoint
         * @description The endpoint, without its secret. Needs `webhooks:read` or `webhooks:manage` on a
         *     tenant-level key.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Removes the endpoint: nothing more is delivered to it, retries pending included. Needs
         *     `webhooks:manage` on a tenant-level key.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id. */
                webhook_id: string;
            };
            cookie?: never;
        };
        /**
         * List an endpoint's recent delivery attempts
         * @description The endpoint's most recent delivery attempts, newest first: at most 50, each kept for
         *     3 days. One entry per POST pmail made, retries included, with the endpoint's status code
         *     (or the error when no answer came) and what the attempt came to. Needs `webhooks:read` or
         *     `webhooks:manage` on a tenant-level key.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id. */
                webhook_id: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event to an endpoint
         * @description Queues a `webhook.test` event for this endpoint only, whatever its `event_types`. It is
         *     delivered as every event is: signed, retried on the schedule, listed in the endpoint's
         *     recent deliveries. It is not an outbox event: `GET /v1/events` and the other endpoints
         *     never see it. `delivery_id` is the event's id, the delivery's `webhook-id` header. Needs
         *     `webhooks:manage` on a tenant-level key.
         */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/links/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The signed token of the link, as it appears in the message: base64url without padding of
                 *     `l1:{kid}:att:{tenant_id}:{identity_id}:{message_id}:{attachment_id}:{expires_unix_s}`
                 *     followed by the first 16 bytes of its HMAC-SHA256 under link key `{kid}`.
                 */
                token: string;
            };
            cookie?: never;
        };
        /**
         * Download a linked attachment
         * @description Serves an attachment that a send replaced by a link in the message body because the
         *     message was too large (tenant policy `large_attachments: "link"`). Needs no API key: the token's MAC is the authority, and an `Authorization`
         *     header is ignored. The kid, the MAC (compared in constant time) and the expiry are checked
         *     before the attachment is read; a link stops working at its expiry second. Any failure (a
         *     malformed token, an unknown key, a wrong MAC, an expired link, an attachment no longer
         *     stored) answers the same 404, so a link reveals nothing about why it failed.
         */
        get: operations["getLink"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): a tenant key's own tenant, or any with a platform key. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
            };
            cookie?: never;
        };
        /**
         * Search the tenant's mail
         * @description Full-text search over the tenant's identities together (docs/guides/receiving.md ›
         *     Search): the first 25 identities that are not deleted, their search partitions read in
         *     parallel, the results merged newest first by message id, each a Message (with its
         *     `identity_id`) with its `highlight`. `q` is required; the list filters apply. A page reads
         *     at most 200 candidate messages: it may hold fewer than `limit`, with a `next_cursor` to go
         *     on. Held mail is found only by a key holding `messages:hold`. Needs `messages:read` on a
         *     tenant key or a platform key: an identity key is 403 `scope_denied`.
         */
        get: operations["searchTenantMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/suppressions": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
            };
            cookie?: never;
        };
        /**
         * List suppressions
         * @description The tenant's suppressed recipients, one page at a time, each shown by its masked
         *     `address_hint` only: pmail keeps an HMAC of the address, never the address. Pass
         *     `address` to ask about one address. Order is stable but not by time. Needs the
         *     `suppressions:manage` permission on a tenant-level or platform key (an identity key is refused, whatever it holds).
         */
        get: operations["listSuppressions"];
        put?: never;
        /**
         * Suppress an address
         * @description Stop sending to an address. A recipient with a live suppression becomes a `suppressed`
         *     delivery with `smtp_response` `policy: suppression ({reason})`, and nothing is sent to it.
         *     `unsubscribe` (and `manual` with `elective: true`) blocks only elective mail; other
         *     suppressions block all mail. Bounces, complaints and the provider add their own
         *     (`hard_bounce`, `complaint`, `provider`); the API adds `manual` and `unsubscribe`.
         *
         *     An address that already has a live suppression keeps it: the answer is 200 with the
         *     suppression in force. One exception: a suppression that blocks all mail replaces one that
         *     blocks only elective mail, and a permanent one replaces one that expires (201). Needs the
         *     `suppressions:manage` permission on a tenant-level key.
         */
        post: operations["createSuppression"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/suppressions/{address}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /** @description The suppressed address, URL-encoded; matched case-insensitively. */
                address: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a suppression
         * @description Send to the address again. Any reason can be removed. Needs the `suppressions:manage`
         *     permission on a tenant-level key.
         */
        delete: operations["deleteSuppression"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/lists/{direction}/{kind}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /**
                 * @description `send`: recipients of outbound mail; `receive`: senders of received mail
                 *     (docs/guides/receiving.md › Held mail). Any other value answers 400 `invalid_request`.
                 */
                direction: "send" | "receive";
                /**
                 * @description `block`: a listed recipient is not sent to (`policy: send_block`). `allow`: with the
                 *     tenant policy `send_allowlist_only`, only listed recipients are sent to
                 *     (`policy: not_on_allowlist` for the others).
                 */
                kind: "block" | "allow";
            };
            cookie?: never;
        };
        /**
         * List the entries of a list
         * @description The list's entries in entry order, one page at a time. Needs the `suppressions:manage`
         *     permission on a tenant-level key.
         */
        get: operations["listListEntries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/lists/{direction}/{kind}/{entry}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /**
                 * @description `send`: recipients of outbound mail; `receive`: senders of received mail
                 *     (docs/guides/receiving.md › Held mail). Any other value answers 400 `invalid_request`.
                 */
                direction: "send" | "receive";
                /** @description `block` or `allow` (see `listListEntries`). */
                kind: "block" | "allow";
                /**
                 * @description An address (`jo@example.net`) or a whole domain (`@example.net`), URL-encoded. Matched
                 *     case-insensitively; an internationalised domain is stored and shown in A-label form
                 *     (`@xn--bcher-kva.example`).
                 */
                entry: string;
            };
            cookie?: never;
        };
        /**
         * Get an entry of a list
         * @description The entry, if it is on the list. Needs the `suppressions:manage` permission on a
         *     tenant-level key.
         */
        get: operations["getListEntry"];
        /**
         * Add an entry to a list
         * @description Adds the entry; adding one that exists changes nothing and answers 200 with it. The body,
         *     if any, is a JSON object: empty, or `{"unauthenticated": true}` on a receive allow entry
         *     (it then admits mail that does not prove its From). An entry there with another
         *     `unauthenticated` answers 409 `list_entry_conflict`. Needs the `suppressions:manage`
         *     permission on a tenant-level key.
         */
        put: operations["putListEntry"];
        post?: never;
        /**
         * Remove an entry from a list
         * @description Needs the `suppressions:manage` permission on a tenant-level key.
         */
        delete: operations["deleteListEntry"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys
         * @description The keys the calling key reaches and is not narrower than, newest first: a platform key every key (`tenant_id` narrows to one tenant), a tenant key its tenant's, an identity key its own identity's identity keys. Needs `keys:manage`.
         */
        get: operations["listKeys"];
        put?: never;
        /**
         * Mint an API key
         * @description Mints a `platform`, `tenant` or `identity` key with explicit `permissions` (no wildcards; each permission only at the levels that may hold it: `tenants:manage` platform only; `policy:write`, `audit:read`, `suppressions:manage`, `webhooks:manage`, `identities:write` platform and tenant). The new key must lie within the caller: its level, tenant, identity and permissions (else `403 key_scope_exceeded`); a key minted by an identity key expires no later than that key (`403 key_scope_exceeded`, `details.reason = "expires_after_caller"`), and only a platform or tenant key mints a key holding `messages:approve` (`403 guardrail_locked`). A tenant or identity key takes its tenant's mode (`pm_test_…` / `pm_live_…`); platform keys are live. An identity key names `identity_id` (its tenant follows). The answer carries `secret`, **shown only here**; the table stores its SHA-256. Writes the audit item `key.create`. Needs `keys:manage`.
         */
        post: operations["createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The key (`key_…`). An id that is malformed, unknown or outside the calling key's reach
                 *     answers 404 `key_not_found`, alike.
                 */
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        /**
         * Read an API key
         * @description The key (never its secret), with `status` (`active`, `revoked`, `expired`) and `last_used_at` (written at most once a minute). Needs `keys:manage`.
         */
        get: operations["getKey"];
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Revokes the key and every secret of it at once: each answers `401 key_revoked` from then on. Revoking a revoked key changes nothing. Writes `key.revoke`. A key may always revoke itself. Needs `keys:manage`.
         */
        delete: operations["revokeKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{key_id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The key (`key_…`). An id that is malformed, unknown or outside the calling key's reach
                 *     answers 404 `key_not_found`, alike.
                 */
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate an API key
         * @description A new secret for the same key; the old secret keeps working for `overlap_hours` (0–168, default 24; 0 stops it at once), then answers `401 key_expired`. The caller must reach the key and not be narrower than it, so no key obtains a wider key's secret. A revoked key is `404 key_not_found`. Writes `key.rotate`. Needs `keys:manage`.
         */
        post: operations["rotateKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Describe the calling key
         * @description The calling key: level, mode, tenant, identity, permissions and expiry. Any key.
         */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the audit log
         * @description Control-plane changes, newest first: keys (`key.create`, `key.rotate`, `key.revoke`), tenants (`tenant.create`, `tenant.update`, `tenant.suspend`, `tenant.resume`, `tenant.policy_update`), identities (`identity.create`, `identity.update`, `identity.delete`, `identity.pause`, `identity.resume`, `identity.auto_pause`) and message operations (`message.cancel`, `message.resolve`). A tenant key reads its tenant's; a platform key names `tenant_id`, or without it reads the platform's own items (platform keys, the bootstrap). Needs `audit:read` (platform or tenant keys).
         */
        get: operations["listAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List tenants
         * @description Every tenant, newest first (filters `status`, `mode`). Needs `tenants:manage` (platform keys).
         */
        get: operations["listTenants"];
        put?: never;
        /**
         * Create a tenant
         * @description A tenant: `slug` (unique), `name`, `mode` (`test` or `live`, never changes), `timezone` (IANA, default UTC) and an optional `policy` over the defaults. A test tenant's identities get addresses on `{slug}.{PM_TEST_DOMAIN}` (default `pmail.test`). Writes `tenant.create`. Needs `tenants:manage` (platform keys).
         */
        post: operations["createTenant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        /**
         * Read a tenant
         * @description A platform key with `tenants:manage` reads any tenant; a tenant key its own. Identity keys get `403 scope_denied`.
         */
        get: operations["getTenant"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update or suspend a tenant
         * @description Changes `name`, `timezone` or `status`. `suspended` stops the tenant's sends at once: every send answers `403 tenant_suspended`, and queued messages are not attempted; `active` lifts it. `mode` never changes (`400`). Writes `tenant.update`, `tenant.suspend` or `tenant.resume`. Needs `tenants:manage` (platform keys).
         */
        patch: operations["updateTenant"];
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/policy": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        /**
         * Read the tenant policy
         * @description The effective policy (every field, defaults filled in) and its `policy_version`. Needs `policy:write` (platform keys, or the tenant's own tenant key).
         */
        get: operations["getTenantPolicy"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the tenant policy
         * @description A deep merge over the stored policy: a value replaces, `null` resets the field to its default. With `policy_version` the write happens only if the policy is still at that version (else `409 policy_version_conflict`); without it concurrent writes are retried on each other, never lost (`503` after three lost attempts). `identity_daily_send_cap` may not exceed `daily_send_cap`. Writes `tenant.policy_update` with the patch. Needs `policy:write` on a platform or tenant key: an identity key, whatever it holds, never changes the policy (docs/security.md).
         */
        patch: operations["updateTenantPolicy"];
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/identities": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        /**
         * List a tenant's identities
         * @description Newest first (filters `status`, `client_id`). Needs `identities:read` on a platform or tenant key.
         */
        get: operations["listIdentities"];
        put?: never;
        /**
         * Create an identity
         * @description An identity with the address `{username}@{domain}`: for a test tenant on its test domain `{slug}.{PM_TEST_DOMAIN}` unless `domain` names one of its sending domains; for a live tenant `domain` must name a sending domain of the tenant that is not being removed (`422 domain_unavailable`). An address is never reused. `owner` is needed before the identity can send (`409 identity_owner_required` on sends). `client_id` makes the call idempotent: the same body again answers `200` with the identity, another body `409 client_id_conflict`. Writes `identity.create`. Needs `identities:write` on a platform or tenant key.
         */
        post: operations["createIdentity"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * MCP server (Streamable HTTP, stateless)
         * @description The Model Context Protocol server: one JSON-RPC 2.0 message (or batch) per POST, answered
         *     with JSON (no session, no server-sent stream; GET is 405). Send `Accept: application/json,
         *     text/event-stream` and `Content-Type: application/json`. Tools: `send_email`, `reply`,
         *     `reply_all`, `forward` (each with a required `idempotency_key` of the Idempotency-Key
         *     header's pattern), `get_message`, `list_messages`, `cancel`, `resolve`, `list_events`; each
         *     is one call of the operation of the same name here, with this request's key.
         *     `wait_for_message` reads on with `listMessages` (`direction=inbound&after=`) every 200 to
         *     800 ms until a message is there or its `timeout_seconds` (at most 25) pass. `tools/list`
         *     lists only the tools the key's permissions allow. A tool's refusal is a tool result with
         *     `isError: true` whose content is this API's Error envelope (the same codes; a send tool
         *     adds the reply attempt's code, the CLI's `IDEMPOTENCY_KEY_REUSED` and the like, as
         *     `details.seed_code`). Results that carry email content are marked
         *     untrusted. A JSON-RPC error of a well-formed request (an unknown method or tool, bad
         *     arguments) is a 200 with the JSON-RPC `error` member. A key that is missing, unknown,
         *     revoked or expired is 401 in this API's Error envelope, before anything else is read.
         *     Protocol faults are answered by the MCP transport in the JSON-RPC error shape
         *     (`JsonRpcError`, `id: null`), not the Error envelope:
         *     - 400: the body is not JSON (`-32700`), not a JSON-RPC message (`-32700`) or an invalid
         *       one (`-32600`), or the `MCP-Protocol-Version` header names a version the server does not
         *       support (`-32000`);
         *     - 406: `Accept` does not list both `application/json` and `text/event-stream` (`-32000`);
         *     - 415: `Content-Type` is not `application/json` (`-32000`).
         *     A body over 10 MiB is refused by the platform before it reaches the server. A tool's own
         *     call goes through the REST handler, so a send tool's arguments over 7 MiB are the tool
         *     result `payload_too_large`.
         */
        post: operations["mcp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Health
         * @description No key. `status` is `ok` when the table and the send state machines answer, else `degraded` (still 200); `version` is the deployed package version.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This contract
         * @description No key. This document, as JSON.
         */
        get: operations["getOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The web console
         * @description No key. The console's page (HTML, `Cache-Control: no-cache`, a strict `Content-Security-Policy`: this origin only, no inline script). It signs in with an API key typed into the page, kept in the tab's sessionStorage, and calls this API with it (docs/guides/console.md).
         */
        get: operations["getConsole"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/{asset}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A file the console page names (its name carries a hash of its content). */
                asset: string;
            };
            cookie?: never;
        };
        /**
         * A file of the web console
         * @description No key. The console's script or stylesheet, `Cache-Control: public, max-age=31536000, immutable`.
         */
        get: operations["getConsoleAsset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/domains": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
            };
            cookie?: never;
        };
        /**
         * List sending domains
         * @description The tenant's sending domains, newest first, removed ones included. Needs `domains:read`
         *     (identity keys may hold it) or `domains:write`.
         */
        get: operations["listDomains"];
        put?: never;
        /**
         * Add a sending domain
         * @description By `transport`:
         *
         *     - `ses`: creates the domain's SES identity (Easy DKIM, in the deployment's configuration
         *       set, with the custom MAIL FROM domain when `mail_from` is given) and answers the DNS
         *       records to publish: three DKIM CNAMEs, the MAIL FROM MX and SPF records, and a DMARC
         *       suggestion. The domain starts `verifying` and is checked at once, then hourly and on
         *       `POST …/verify`.
         *     - `smtp`: the tenant's own relay (`smtp`). The relay host must pass the SSRF rules (every
         *       address it resolves to global unicast; port 25, 465, 587 or 2525), else 400 with the
         *       path `smtp.host` or `smtp.port`. The local runtime (`npm start`) lifts these rules, the
         *       port rule with the address rules, so a domain there may name a relay on the machine on
         *       any port. `password` / `access_token` are write-only: stored in
         *       the domain's own secret, never answered (`smtp.credentials_stored` says one is there).
         *       The domain is `verifying` (`smtp_probe_pending`) until `POST …/verify` (or the hourly
         *       check) runs the probe — connect, EHLO, STARTTLS, AUTH, QUIT, no message — and it passes.
         *     - `cloudflare`: Cloudflare Email Sending with the deployment's token, from the domain's
         *       `cloudflare.account_id` or the deployment's account. pmail cannot read Cloudflare's
         *       sending-domain status, so the domain is `healthy` at once with `state_reason`
         *       `cloudflare_unchecked`; onboard it in the Cloudflare dashboard first.
         *
         *     Needs `domains:write` on a tenant-level key.
         */
        post: operations["createDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/domains/{domain_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /** @description The domain's id. */
                domain_id: string;
            };
            cookie?: never;
        };
        /**
         * Read a sending domain
         * @description The domain, its state with `state_reason` and `checked_at`, and its DNS records. Needs
         *     `domains:read` (identity keys may hold it) or `domains:write`.
         */
        get: operations["getDomain"];
        put?: never;
        post?: never;
        /**
         * Remove a sending domain
         * @description The domain becomes `removing` (nothing more is sent from it: a queued message from it is
         *     rejected with `sender_domain_unavailable` when claimed), its SES identity is deleted, and
         *     it is `removed`. A removal interrupted half-way is finished by the hourly check. Needs
         *     `domains:write` on a tenant-level key.
         */
        delete: operations["deleteDomain"];
        options?: never;
        head?: never;
        /**
         * Change a sending domain
         * @description Changes the Reply-To token mode, an `ses` domain's own configuration set, a `cloudflare`
         *     domain's account, or an `smtp` domain's relay: `smtp` replaces the relay settings as a
         *     whole; with `password` / `access_token` it replaces the stored secret (write-only), without
         *     them the stored secret is kept. New relay settings make the domain `verifying`
         *     (`smtp_probe_pending`) until the probe passes again (`POST …/verify`). Settings of another
         *     transport than the domain's are refused (400). Needs `domains:write` on a tenant-level key.
         */
        patch: operations["updateDomain"];
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/domains/{domain_id}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /** @description The domain's id. */
                domain_id: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check a sending domain now
         * @description `ses`: reads the SES identity (GetEmailIdentity) and moves the state: verified with DKIM →
         *     `healthy` (`degraded` when the MAIL FROM domain fails); DKIM not found yet → `verifying`
         *     (`failing` for a domain that was verified); DKIM failed or the identity gone → `failing`.
         *     `smtp`: runs the relay probe (connect, EHLO, STARTTLS, AUTH, QUIT — no message): passed →
         *     `healthy`; failed → `verifying` (`failing` for a domain that was verified) with the
         *     probe's issue as `state_reason` (`smtp_tls_required`, `smtp_auth_failed`,
         *     `smtp_unreachable`, `smtp_relay_address_refused`). `cloudflare`: not checked (stays
         *     `healthy`, `cloudflare_unchecked`). Needs `domains:write` on a tenant-level key.
         */
        post: operations["verifyDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/templates": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        /**
         * List templates
         * @description The tenant's templates, current versions, without their sources (one page: at most 100).
         *     Needs `templates:read` (identity keys may hold it) or `templates:write`.
         */
        get: operations["listTemplates"];
        put?: never;
        /**
         * Create a template
         * @description A named template of the tenant, version 1 (or, for a name that was deleted, the version
         *     after its last one: a recorded version never names two sources). `subject`, `text` and
         *     `html` are Handlebars sources (built-in block helpers only: `if`, `unless`, `each`, `with`,
         *     `lookup`); in `html` every `{{variable}}` is escaped for HTML, in `subject` and `text`
         *     nothing is. `{{@unsubscribe_url}}` is the send's `unsubscribe.url`. `variables_schema` is a
         *     JSON Schema (draft-07, `"type": "object"` at the root, the formats of ajv-formats)
         *     compiled with Ajv in strict mode when saved: a schema Ajv refuses, a source that does not
         *     parse, no `text` and no `html`, sources over 128 KiB together, or a schema over 16 KiB is
         *     400 `invalid_template` and nothing is stored. `category` is what the message is
         *     (`marketing` cannot render without an unsubscribe link); `kind` is whether the recipient
         *     may refuse it (`elective` mail is blocked by an unsubscribe; a marketing template is
         *     elective). At most 100 templates per tenant. Needs `templates:write` (platform or tenant
         *     key).
         */
        post: operations["createTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/templates/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
                /** @description The template's name. */
                name: string;
            };
            cookie?: never;
        };
        /**
         * Read a template
         * @description The current version, with its sources and schema. Needs `templates:read` or `templates:write`.
         */
        get: operations["getTemplate"];
        /**
         * Save a new version of a template
         * @description Replaces the sources, schema, category and kind as a new version (the previous version is
         *     kept: messages record the version they rendered). Checked as on create. Concurrent PUTs
         *     each make their own version. Needs `templates:write`.
         */
        put: operations["updateTemplate"];
        post?: never;
        /**
         * Delete a template
         * @description Sends by this name answer 404 `template_not_found` from now on; its versions stay stored
         *     for the messages that name them, and the tenant's place is given back. Needs
         *     `templates:write`.
         */
        delete: operations["deleteTemplate"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant_id}/templates/{name}/preview": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
                /** @description The template's name. */
                name: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Render a template with sample variables
         * @description The current version rendered as a send renders it: the variables checked against its
         *     schema, then the same engine. Without `variables`, samples from the schema are used (each
         *     property's `const`, first example, default or first enum value, else a stand-in for its
         *     type), and the answer shows them. A marketing template renders with a stand-in unsubscribe
         *     URL. Nothing is sent or stored. Needs `templates:read` or `templates:write`.
         */
        post: operations["previewTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Identity: {
            receive_policy: {
                /**
                 * @description What is held back from the agent: nothing (`none`, the default), mail that does not prove its
                 *     From (`unauthenticated`), or also mail whose proven From is no contact (`unknown`). The
                 *     receive lists and the stranger rate act whatever it says.
                 * @enum {string}
                 */
                hold?: "none" | "unauthenticated" | "unknown";
                /** @description Mail from senders neither known nor allowed shown per hour (default 10 per sender, 50 in all); past it, held with reason `rate`. */
                stranger_rate?: {
                    per_sender?: number;
                    total?: number;
                };
            };
            metadata: {
                [key: string]: string;
            };
            client_id: string | null;
            /**
             * Format: date-time
             * @description Null for identities made before this field existed.
             */
            created_at: string | null;
            /** Format: date-time */
            updated_at: string | null;
            id: string;
            tenant_id: string;
            username: string;
            display_name: string;
            /** @enum {string} */
            status: "active" | "paused" | "deleting" | "deleted";
            /** @description `manual` or `abuse_threshold` while paused; null otherwise. */
            pause_reason: string | null;
            primary_address: string;
            addresses: string[];
            owner: {
                name: string;
                email: string;
            } | null;
            send_policy: {
                daily_cap?: number;
                require_known_recipient?: boolean;
                /**
                 * @description `true`: every send waits for a person's approval (accepted `pending_approval`, sent only
                 *     after `approveMessage`); `first_contact`: only a send to someone who is not yet a contact
                 *     waits. Default false.
                 */
                require_approval?: boolean | "first_contact";
            };
        };
        /** @description At least one field. `null` clears `owner`, `send_policy`, `receive_policy` or `metadata`. Field changes are written first, then the status. */
        IdentityUpdateRequest: {
            /** @enum {string} */
            status?: "active" | "paused";
            /** @description The From display name. A CR or LF in it is refused (400 `invalid_request`, path `display_name`). */
            display_name?: string;
            owner?: {
                name: string;
                email: string;
            } | null;
            send_policy?: {
                require_known_recipient?: boolean;
                daily_cap?: number;
                /**
                 * @description `true`: every send waits for a person's approval (accepted `pending_approval`, sent only
                 *     after `approveMessage`); `first_contact`: only a send to someone who is not yet a contact
                 *     waits. Default false.
                 */
                require_approval?: boolean | "first_contact";
            } | null;
            receive_policy?: {
                /**
                 * @description What is held back from the agent: nothing (`none`, the default), mail that does not prove its
                 *     From (`unauthenticated`), or also mail whose proven From is no contact (`unknown`). The
                 *     receive lists and the stranger rate act whatever it says.
                 * @enum {string}
                 */
                hold?: "none" | "unauthenticated" | "unknown";
                /** @description Mail from senders neither known nor allowed shown per hour (default 10 per sender, 50 in all); past it, held with reason `rate`. */
                stranger_rate?: {
                    per_sender?: number;
                    total?: number;
                };
            } | null;
            metadata?: {
                [key: string]: string;
            } | null;
        };
        /** @description A webhook endpoint to add. Unknown fields are refused with 400 `invalid_request`. */
        WebhookCreateRequest: {
            /** @description An https URL (no credentials, no fragment, not an IP literal of a loopback, private or link-local range); its query string is kept. */
            url: string;
            /** @description Only these event types are delivered; leave it out for every type but `message.held`, which goes only to an endpoint that names it. */
            event_types?: string[];
            description?: string;
        };
        Webhook: {
            id: string;
            url: string;
            event_types: string[] | null;
            description: string | null;
            /** @enum {string} */
            status: "active" | "disabled";
            /**
             * @description Why the endpoint is disabled; `gone` after it answered 410.
             * @enum {string|null}
             */
            disabled_reason: "gone" | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        WebhookCreated: components["schemas"]["Webhook"] & {
            /** @description The signing secret, shown only in this response. */
            secret: string;
        };
        WebhookList: {
            data: components["schemas"]["Webhook"][];
            /** @description Always null; a tenant's endpoints fit one page. */
            next_cursor: null;
        };
        TemplatePreviewRequest: {
            /** @description The variables to render with; without it, samples from the template's schema. */
            variables?: {
                [key: string]: unknown;
            };
        };
        TemplatePreview: {
            name: string;
            version: number;
            /** @description The variables it was rendered with (the samples, when none were given). */
            variables: {
                [key: string]: unknown;
            };
            subject: string;
            text: string | null;
            html: string | null;
        };
        WebhookDeliveryList: {
            data: components["schemas"]["WebhookDeliveryAttempt"][];
            /** @description Always null; the list is the most recent attempts only. */
            next_cursor: null;
        };
        WebhookDeliveryAttempt: {
            /** @description The delivered event's id (the `webhook-id` header of the POST). */
            event_id: string;
            /**
             * @example message.delivered
             * @example webhook.test
             */
            event_type: string;
            /** @description 1 for the first POST of this event to this endpoint. */
            attempt: number;
            /** @description The endpoint's HTTP status; null when no answer came. */
            status_code: number | null;
            /** @description Why no answer came (`TimeoutError`, `ECONNREFUSED`, `address_refused`, …). */
            error: string | null;
            /**
             * @description `delivered`: a 2xx. `retrying`: another attempt follows on the schedule. `dead`: that
             *     was the last attempt. `disabled`: the endpoint answered 410 and was disabled.
             * @enum {string}
             */
            result: "delivered" | "retrying" | "dead" | "disabled";
            /** Format: date-time */
            attempted_at: string;
            duration_ms: number;
        };
        WebhookTestQueued: {
            /** @description The test event's id; its attempts carry it as `event_id`. */
            delivery_id: string;
            webhook_id: string;
            /** @constant */
            event_type: "webhook.test";
            /** @constant */
            status: "queued";
        };
        EventList: {
            data: components["schemas"]["Event"][];
            /** @description The id of the last event when more follow (pass it as `after`); else null. */
            next_cursor: string | null;
        };
        Event: {
            id: string;
            /** @example message.delivered */
            type: string;
            /** Format: date-time */
            created_at: string;
            /**
             * @description The event's fields; every message event has `message_id`, `identity_id` and
             *     `thread_id` (its conversation).
             */
            data: Record<string, never>;
        };
        /** @description What the stream the ticket opens delivers, and where it starts. Each field absent is "any". */
        StreamTicketRequest: {
            /** @description Only this identity's events (in the key's reach). */
            identity_id?: string;
            /** @description Only the events of this conversation (`data.thread_id`). */
            thread_id?: string;
            /** @description Event types; `message.*` matches every type under `message.`. */
            types?: string[];
            /**
             * @description Start after this event: every later event from the feed first, then live ones, all in
             *     feed order. Without it the stream starts at the feed's head. One older than the 30
             *     days the feed keeps closes the stream with 4010 `after_too_old`.
             */
            after?: string;
        };
        StreamTicket: {
            /** @description Pass as `?ticket=` on the stream's URL, once. */
            ticket: string;
            /** Format: date-time */
            expires_at: string;
            /** @description The stream's URL (`wss://…` on AWS, `ws://127.0.0.1:8787/v1/stream` on `npm start`). */
            url: string | null;
        };
        /**
         * @description A text frame of the event stream (docs/guides/stream.md › Frames): an event, a heartbeat,
         *     or the last frame before pmail closes the stream.
         */
        StreamFrame: components["schemas"]["StreamEventFrame"] | components["schemas"]["StreamHeartbeatFrame"] | components["schemas"]["StreamCloseFrame"];
        StreamEventFrame: {
            /** @constant */
            type: "event";
            event: components["schemas"]["Event"];
            /** @description The event was above 128 KB and came without its `data`; read it with `GET /v1/events`. */
            data_omitted?: boolean;
        };
        StreamHeartbeatFrame: {
            /** @constant */
            type: "heartbeat";
            /** Format: date-time */
            at: string;
        };
        StreamCloseFrame: {
            /** @constant */
            type: "close";
            /** @enum {integer} */
            code: 1001 | 4001 | 4002 | 4008 | 4010 | 4029;
            /** @enum {string} */
            reason: "going_away" | "key_revoked" | "key_expired" | "slow_consumer" | "after_too_old" | "connection_limit";
            message: string;
            /** @description The last event id pmail sent on this stream; reconnect with it as `after`. */
            after: string | null;
        };
        /**
         * @description A new message. At least one recipient in `to`, `cc` or `bcc` (an address repeated across
         *     the three is sent once, in the first field it appears in), and `text`, `html` or both, or a `template` with its `variables`.
         *     Unknown fields are refused with 400 `invalid_request`.
         */
        SendMessageRequest: {
            to?: components["schemas"]["Recipient"][];
            cc?: components["schemas"]["Recipient"][];
            bcc?: components["schemas"]["Recipient"][];
            /**
             * @description One line. A CR or LF in it is refused (400 `invalid_request`, path `subject`).
             * @default
             */
            subject: string;
            /** @description The plain-text body. Derived from `html` when absent. */
            text?: string;
            /** @description The HTML body. */
            html?: string;
            attachments?: components["schemas"]["Attachment"][];
            kind?: components["schemas"]["MessageKind"];
            unsubscribe?: components["schemas"]["Unsubscribe"];
            consent?: components["schemas"]["Consent"];
            /**
             * @description A thread of this identity (`thr_…`) to send on instead of starting a new one. An id
             *     that is not one answers 404 `thread_not_found`.
             * @example thr_01jz8m4n7q2r5t8v1w3x6y9z0b
             */
            thread_id?: string;
            /**
             * @description An active address of this identity to send from. When absent: the primary address,
             *     or on a thread the address the thread already uses. On a thread it may also be a
             *     retiring address the thread already uses.
             */
            from_address?: string;
            labels?: components["schemas"]["Labels"];
            headers?: components["schemas"]["CustomHeaders"];
            metadata?: components["schemas"]["Metadata"];
            send_at?: components["schemas"]["SendAt"];
            unless_reply?: components["schemas"]["UnlessReply"];
            template?: components["schemas"]["TemplateName"];
            variables?: components["schemas"]["TemplateVariables"];
        } | unknown | unknown | unknown;
        /**
         * @description The content of a reply or reply-all: recipients, subject, threading and From come from
         *     the original message and its thread (see `replyMessage`), so the body carries only what
         *     is new. `text`, `html` or both, or a `template` with its `variables`. Any other field, `to` or `subject` included, is refused
         *     with 400 `invalid_request`.
         */
        ReplyMessageRequest: {
            /** @description The plain-text body. Derived from `html` when absent. */
            text?: string;
            /** @description The HTML body. */
            html?: string;
            attachments?: components["schemas"]["Attachment"][];
            kind?: components["schemas"]["MessageKind"];
            labels?: components["schemas"]["Labels"];
            headers?: components["schemas"]["CustomHeaders"];
            metadata?: components["schemas"]["Metadata"];
            send_at?: components["schemas"]["SendAt"];
            unless_reply?: components["schemas"]["UnlessReply"];
            template?: components["schemas"]["TemplateName"];
            variables?: components["schemas"]["TemplateVariables"];
        } | unknown | unknown | unknown;
        /**
         * @description A forward: the reply fields plus the recipients and whether to carry the original's
         *     attachments. At least one recipient in `to`, `cc` or `bcc`, and `text`, `html` or both, or a `template` with its `variables`.
         *     Subject, threading and From come from the original message (see `forwardMessage`). Any
         *     other field is refused with 400 `invalid_request`.
         */
        ForwardMessageRequest: {
            to?: components["schemas"]["Recipient"][];
            cc?: components["schemas"]["Recipient"][];
            bcc?: components["schemas"]["Recipient"][];
            /** @description The plain-text note above the forwarded message. */
            text?: string;
            /** @description The HTML note above the forwarded message. */
            html?: string;
            attachments?: components["schemas"]["Attachment"][];
            kind?: components["schemas"]["MessageKind"];
            labels?: components["schemas"]["Labels"];
            headers?: components["schemas"]["CustomHeaders"];
            metadata?: components["schemas"]["Metadata"];
            /**
             * @description Attach the original's attachments again (executables and scripts excepted). `false`
             *     forwards the text only.
             * @default true
             */
            include_attachments: boolean;
            send_at?: components["schemas"]["SendAt"];
            unless_reply?: components["schemas"]["UnlessReply"];
            template?: components["schemas"]["TemplateName"];
            variables?: components["schemas"]["TemplateVariables"];
        } | unknown | unknown | unknown;
        /**
         * @description A follow-up that waits for no answer: with `send_at`, on a reply, a reply-all, a forward or
         *     a send with `thread_id`. When its time comes it is canceled (`status: canceled`,
         *     `status_reason: reply_received`, `message.canceled` with `reason: reply_received`) if a
         *     message arrived in its thread after it was accepted that is a person's mail: not automatic
         *     (an out-of-office, an auto-reply, a list), not a delivery report, not a duplicate, not held
         *     back. Decided in the same write that claims it for sending, so an answer landing at the last
         *     moment either cancels it or finds it already sent, never both (docs/guides/sending.md › A
         *     follow-up unless they reply). Without `send_at`, or on a send outside a thread: 400
         *     `invalid_request` naming `unless_reply`.
         */
        UnlessReply: boolean;
        /**
         * @description A send by template: the name of a template of the identity's tenant (its current
         *     version; 404 `template_not_found` when there is none). Instead of `subject`, `text`,
         *     `html` and `kind`, which the template gives (each is 400 `invalid_request` beside it); the
         *     other fields keep their meaning. On `replyMessage`, `replyAllMessage` and
         *     `forwardMessage` the subject stays the thread's.
         */
        TemplateName: string;
        /**
         * @description The variables of a send by template, checked against its `variables_schema` before
         *     anything is stored (400 `invalid_payload`), at most 16 KiB of JSON. The Idempotency-Key
         *     fingerprint covers `template`, the template's version and `variables`: the same key with
         *     other variables, or after a new version of the template, is 409 `idempotency_conflict`.
         *     Stored on the message so an attempt can re-render; a transactional template's variables
         *     are emptied once the message is final (`payload_redacted_at`). Never shown or logged.
         */
        TemplateVariables: {
            [key: string]: unknown;
        };
        /**
         * Format: date-time
         * @description Schedule the send: an RFC 3339 time with an offset, in the future and at most 30 days
         *     ahead (else 400 `invalid_request`). The message stays `queued` with this `send_at` until
         *     then and can be canceled until its attempt begins.
         * @example 2026-12-03T09:00:00Z
         */
        SendAt: string;
        /**
         * @description - `transactional` (the default): mail the recipient needs, such as a receipt or an
         *       answer. It still reaches someone who unsubscribed: only a suppression that blocks all
         *       mail (any reason but `unsubscribe`, unless `manual` was made elective) stops it.
         *     - `marketing`: elective mail. Needs `unsubscribe.url` (HTTPS) and `consent`, which only
         *       `sendMessage` takes, and a sending domain with an `ses` or `smtp` transport. pmail adds
         *       `List-Unsubscribe` and one-click `List-Unsubscribe-Post` headers and, unless the body
         *       already shows the URL, an unsubscribe footer. Recipients who unsubscribed are
         *       suppressed.
         *     - `auto_reply`: an automatic answer (pmail adds `Auto-Submitted: auto-replied`). Only a
         *       reply or reply-all to mail that is not itself automated, when the tenant's policy
         *       allows it, and at most a few in a row on a thread (409 `auto_reply_not_allowed`).
         * @default transactional
         * @enum {string}
         */
        MessageKind: "transactional" | "marketing" | "auto_reply";
        /** @description Where a recipient unsubscribes; required with `kind: marketing`. */
        Unsubscribe: {
            /**
             * @description The one-click unsubscribe URL (RFC 8058). Must be HTTPS for a marketing send.
             * @example https://example.com/unsubscribe/2291
             */
            url: string;
            /** @description An address that unsubscribes too, added to `List-Unsubscribe`. */
            mailto?: string;
        };
        /** @description The consent a marketing send relies on; required with `kind: marketing`. */
        Consent: {
            /** @example newsletter_signup */
            basis: string;
            /**
             * Format: date-time
             * @description When the consent was given, RFC 3339 in UTC (ending in `Z`).
             */
            recorded_at?: string;
        };
        /**
         * @description Your own tags, returned on the message. Kept as sent; a later change of labels
         *     (POST …/messages/{message_id}/labels) adds only labels of its alphabet, and may remove these.
         */
        Labels: string[];
        /** @description Labels to add and to remove, at least one in all. */
        LabelChange: {
            add?: string[];
            remove?: string[];
        };
        MessageLabels: {
            message_id: string;
            /** @description The message's labels after the change, in the order they were added. */
            labels: string[];
        };
        ThreadLabels: {
            thread_id: string;
            /** @description The thread's labels after the change, in the order they were added. */
            labels: string[];
        };
        /** @description Your own string pairs, returned on the message; at most 20 keys. */
        Metadata: {
            [key: string]: string;
        };
        /**
         * @description Extra message headers, name to value. Allowed names: `X-` followed by letters, digits,
         *     `_` or `-` (at most 100 bytes, either case), except pmail's own `X-Pmail-*` and
         *     `X-AI-Generated`; and `Importance` (`high`, `normal`, `low`), `Priority` (`normal`,
         *     `non-urgent`, `urgent`), `Sensitivity` (`personal`, `private`, `company-confidential`),
         *     `Keywords`, `Comments` and `Organization`, in any case (sent in their usual case). Any
         *     other name answers 400 `header_not_allowed`; pmail sets From, To, Subject, Reply-To,
         *     In-Reply-To, References and the like itself.
         *
         *     400 `invalid_request` (`path` `headers.{name}`, or `headers`) for: an empty value, a CR or
         *     LF, a value over 2,048 bytes, a value outside a named header's list, two names that
         *     differ only in case, more than 20 headers not starting with `X-` (counting the ones pmail
         *     adds), or more than 16 KiB of names and values in all.
         * @example {
         *       "X-Order-Id": "2291",
         *       "Importance": "high"
         *     }
         */
        CustomHeaders: {
            [key: string]: string;
        };
        /**
         * @description The answer to a dry run that found no error: the message would be accepted. The
         *     recipients are the ones the message would have, de-duplicated, in to, cc, bcc order
         *     (for a reply or reply-all, the ones pmail chose).
         */
        DryRunResult: {
            /** @constant */
            would_send: true;
            recipients: {
                address: string;
                /** @enum {string} */
                field: "to" | "cc" | "bcc";
                /**
                 * @description `queued`: it would be sent to. `suppressed`: a recipient filter would keep the
                 *     message from it (`reason`).
                 * @enum {string}
                 */
                status: "queued" | "suppressed";
                /**
                 * @description Only for `suppressed`: the suppression's reason (`manual`, `unsubscribe`,
                 *     `hard_bounce`, `complaint`, `provider`), or the list rule that filtered it:
                 *     `not_on_allowlist` (the tenant sends only to its send-allow list) or
                 *     `unknown_recipient` (the identity sends only to known contacts). A recipient on
                 *     the send-block list makes the dry run a 422 `recipient_blocked` instead, so
                 *     `send_block` never appears here.
                 * @enum {string}
                 */
                reason?: "manual" | "unsubscribe" | "hard_bounce" | "complaint" | "provider" | "not_on_allowlist" | "unknown_recipient";
            }[];
        };
        /** @description A bare address, or an address with a display name. */
        Recipient: string | {
            address: string;
            /** @description The display name. A CR or LF in it is refused (400 `invalid_request`, path e.g. `to[0].name`). */
            name?: string;
        };
        /** @description An inline attachment needs `content_id`. */
        Attachment: {
            /** @description At most 255 bytes of UTF-8; no `/`, `\` or control characters. */
            filename: string;
            /** @example application/pdf */
            content_type: string;
            /** @description The content in standard base64; whitespace is ignored. */
            content_base64: string;
            /**
             * @description `attachment` when absent.
             * @enum {string}
             */
            disposition?: "attachment" | "inline";
            content_id?: string;
        };
        SendBatchRequest: {
            /**
             * @description The messages, each a `SendMessageRequest` with its own `idempotency_key` (checked,
             *     like the whole body, by `sendMessage`). At most 1,000 recipients across them.
             */
            messages: components["schemas"]["SendBatchMessage"][];
        };
        /**
         * @description A message of a batch: the fields of `SendMessageRequest` (checked by `sendMessage`, per
         *     message: a field it refuses is that message's 400) and `idempotency_key`, the key of that
         *     one send.
         */
        SendBatchMessage: {
            /**
             * @description This message's Idempotency-Key: unique in the batch, reused on every retry of this
             *     message (alone or in a batch).
             */
            idempotency_key: string;
        } & {
            [key: string]: unknown;
        };
        SendBatchResponse: {
            /** @description One result per message, in the batch's order. */
            data: components["schemas"]["SendBatchResult"][];
        };
        SendBatchResult: {
            /**
             * @description The HTTP status `sendMessage` would have answered for this message: 202 accepted (or
             *     replayed), else the error's status.
             * @example 202
             */
            status: number;
            message?: components["schemas"]["SendMessageResponse"];
            error?: components["schemas"]["Error"]["error"];
            /** @description The Retry-After (seconds) `sendMessage` would have answered with this error. */
            retry_after?: number;
        };
        /** @description The accepted message, and whether this answer is a replay. */
        SendMessageResponse: components["schemas"]["Message"] & {
            /**
             * @description `true` when this is the stored answer to an earlier request with the same
             *     Idempotency-Key and body; no new message was created.
             */
            deduplicated: boolean;
        };
        Message: {
            /** @example msg_01jz8m4n7q2r5t8v1w3x6y9z0a */
            id: string;
            /** @example thr_01jz8m4n7q2r5t8v1w3x6y9z0b */
            thread_id: string;
            /** @example idn_01jz8m4n7q2r5t8v1w3x6y9z0c */
            identity_id: string;
            /** @enum {string} */
            direction: "outbound" | "inbound";
            /**
             * @description Outbound: the roll-up of the deliveries. `queued` until the provider takes it;
             *     `uncertain` when the provider call's outcome is unknown (never resent automatically);
             *     `undispatched` while its transport is not configured; `pending_approval` while it waits
             *     for a person's approval (the identity's `send_policy.require_approval`: nothing sent,
             *     nothing counted). Inbound: `received`.
             * @enum {string}
             */
            status: "pending_approval" | "queued" | "submitted" | "delivered" | "deferred" | "bounced" | "complained" | "rejected" | "failed" | "uncertain" | "suppressed" | "canceled" | "undispatched" | "received";
            /**
             * @description A stable reason code when the message reached rejected, failed or uncertain (or
             *     suppressed), or was canceled by pmail (`reply_received`: a follow-up sent with
             *     `unless_reply` whose thread was answered first; `rejected_by_reviewer`; an identity
             *     paused or deleted, a tenant suspended). A queued message waiting in a back-off shows
             *     `retry_later:{class}`; that reason goes when the message leaves queued (a submitted
             *     message has none).
             */
            status_reason: string | null;
            from: components["schemas"]["Mailbox"];
            to: components["schemas"]["Mailbox"][];
            cc: components["schemas"]["Mailbox"][];
            bcc: components["schemas"]["Mailbox"][];
            reply_to: components["schemas"]["Mailbox"][];
            subject: string;
            /**
             * @description The plain text, sent or received: a sent message's text part as it went out (signature,
             *     disclosure and footers included); a received message's text part, or the text of its
             *     HTML when only HTML came. Null when the message has none, when this view leaves it out
             *     (`body_omitted`) or when it is withheld (`body_withheld`). Text from outside on received
             *     mail, and on sent mail that quotes or forwards it: show it as text, never as markup.
             */
            text: string | null;
            /**
             * @description The HTML, sanitised (scripts, event handlers, forms, frames and `javascript:` links
             *     removed), sent or received; the exact HTML sent stays in the stored MIME
             *     (`getMessageRaw`). Null like `text`.
             */
            html: string | null;
            /**
             * @description What the sender wrote: a received message's text without the quoted history and the
             *     signature (docs/guides/receiving.md › The new text); a sent message's text. Null like
             *     `text`.
             */
            extracted_text: string | null;
            /** @description The start of the text, whitespace collapsed (at most 200 characters); null without text. */
            snippet: string | null;
            /** @description The message's attachments, sent or received, in order; each downloadable with `getAttachment`. */
            attachments: components["schemas"]["MessageAttachment"][];
            /** @description The text or HTML was cut to fit what pmail stores; the stored original has all of it. */
            body_truncated: boolean;
            /**
             * @description Why the message shows no body although it had one: `payload_redacted`, a transactional
             *     template's message once final (its payload is spent, so a sign-in link or a code does
             *     not come back in a thread, a search or an agent's context). Null otherwise.
             * @enum {string|null}
             */
            body_withheld: "payload_redacted" | null;
            /**
             * @description This view leaves out body fields the message may have: a page of `listMessages`, a
             *     send's or an action's answer (`text`, `html` and `extracted_text` null), a thread
             *     (`html` and `extracted_text` null, `text` as the budget left it). `getMessage` has them.
             */
            body_omitted: boolean;
            /**
             * Format: date-time
             * @description Outbound only, when pmail accepted the message; null on inbound messages.
             */
            sent_at: string | null;
            /**
             * Format: date-time
             * @description When pmail accepted (outbound) or received (inbound) the message.
             */
            received_at: string;
            /** @enum {string} */
            kind: "transactional" | "marketing" | "auto_reply";
            /**
             * @description Outbound only (null on inbound mail). Whether the recipient may refuse this message (its kind):
             *     `elective` mail is blocked by an unsubscribe; `transactional` mail only by a hard
             *     bounce, a complaint or a suppression that blocks everything. Set from a template's
             *     kind, never by the caller; otherwise `elective` for `kind: marketing`, else
             *     `transactional`.
             * @enum {string|null}
             */
            consent_kind: "transactional" | "elective" | null;
            labels: string[];
            /**
             * @description Markers such as `sent_via_fallback`, `reconciled`, `loopback`. On received mail:
             *     `quarantined`, `spam`, `auto_reply`, `oversize`, `unparsed`, `risky_attachment`,
             *     `possible_duplicate` (an earlier message has its Message-ID), and `dsn`
             *     for a delivery status report kept as ordinary mail because it does not prove it answers
             *     pmail's own envelope (null sender, to a signed return path, naming its recipient): it
             *     changed no delivery and suppressed nothing (docs/guides/receiving.md › Which reports count).
             */
            flags: string[];
            metadata: {
                [key: string]: string;
            };
            /**
             * @description The Message-ID header's value with its angle brackets, as the header carries it
             *     (`<01jz8m4n7q2r5t8v1w3x6y9z0a@example.com>`): the same form as `in_reply_to` and as
             *     another message's In-Reply-To and References headers, so it compares equal to them.
             * @example <01jz8m4n7q2r5t8v1w3x6y9z0a@example.com>
             */
            rfc_message_id: string;
            /**
             * @description The Message-ID (with its angle brackets, like `rfc_message_id`) of the message this
             *     one answers; null when it answers none.
             */
            in_reply_to: string | null;
            /**
             * Format: date-time
             * @description A scheduled send's time; null for a send made at once and for inbound mail.
             */
            send_at: string | null;
            /**
             * @description Outbound: the send waits for no answer (`unless_reply` in the request): at its time it is
             *     canceled with `status_reason: reply_received` if a qualifying message arrived in its
             *     thread after it was accepted. Null on inbound mail.
             */
            unless_reply: boolean | null;
            /**
             * @description The provider that took the message; null until one has.
             * @enum {string|null}
             */
            provider: "simulator" | "loopback" | "ses" | "cloudflare" | "smtp" | null;
            provider_message_id: string | null;
            /** @description A send by template, the template and the version it rendered; else null. */
            template: null | {
                name: string;
                version: number;
            };
            /**
             * Format: date-time
             * @description When the template variables of this message were emptied (a transactional template,
             *     once the message is final); null otherwise.
             */
            payload_redacted_at: string | null;
            held: components["schemas"]["Held"];
            /**
             * @description What belongs to a received message's receipt (null on an outbound message): envelope,
             *     verdicts, parse flags, threading. Its body is the Message's own (`text`, `html`, …). The
             *     typed addresses are `from`, `to`, `cc` and `reply_to` above; `canonical` has them lower
             *     case.
             */
            inbound: null | components["schemas"]["InboundFields"];
            /** @description Outbound messages only, one per recipient. */
            deliveries?: components["schemas"]["Delivery"][];
        };
        Delivery: {
            /**
             * @description The normalised address (domain in lower case and A-label form), what is sent to. Every
             *     match (suppressions, contacts, send lists, provider answers) uses its canonical form,
             *     the whole address in lower case: `Ada@Example.com` and `ada@example.com` are one mailbox.
             */
            address: string;
            /**
             * @description What the caller typed for this recipient, when it differs from `address` (kept so an
             *     operator sees the string actually addressed); null otherwise. Never matched on.
             */
            typed_address: string | null;
            /** @enum {string} */
            field: "to" | "cc" | "bcc";
            /** @enum {string} */
            status: "queued" | "submitted" | "delivered" | "deferred" | "bounced" | "complained" | "rejected" | "failed" | "uncertain" | "suppressed";
            /** @example 250 */
            smtp_code: string | null;
            /** @example 2.0.0 */
            enhanced_code: string | null;
            /**
             * @description The provider's or the remote server's answer for this recipient (a bounce report's
             *     Diagnostic-Code): untrusted text from outside, one line of at most 512 characters with
             *     control characters removed. Show it as text, never as markup.
             */
            smtp_response: string | null;
            /** @enum {string|null} */
            bounce_type: "hard" | "soft" | null;
            /** Format: date-time */
            updated_at: string;
        };
        /**
         * @description Held back from the agent (docs/guides/receiving.md › Held mail): only a key holding
         *     `messages:hold` reads a held message. Null for any other message.
         */
        Held: {
            /** @enum {string} */
            reason: "blocked" | "unauthenticated" | "unknown" | "rate";
            /** Format: date-time */
            held_at: string | null;
        } | null;
        /**
         * @description Who sent it (docs/guides/receiving.md › Who sent it): `authenticated` when DMARC passed or a
         *     DKIM signature aligned with From passed; each verdict as RFC 8601 words (`pass`, `fail`,
         *     `softfail`, `neutral`, `none`, `temperror`, `permerror`), computed by the local MX
         *     (`verified_by: mx`) or SES (`ses`: no ARC, `arc` null). Null on a message stored without it.
         */
        Trust: {
            authenticated: boolean;
            spf: string;
            dkim: string;
            dkim_aligned: boolean;
            dmarc: string;
            arc: string | null;
            /** @enum {string} */
            verified_by: "mx" | "ses";
            /** @description The From is a contact of the identity and the message proves it. */
            known_sender: boolean;
            /**
             * @description The receive list entry that decided for this sender.
             * @enum {string|null}
             */
            listed: "allow" | "block" | null;
            /** @description The message's risk flags (quarantined, spam, risky_attachment, possible_duplicate, dsn, unparsed). */
            risk: string[];
        } | null;
        Mailbox: {
            address: string;
            name: string | null;
        };
        MessageAttachment: {
            /** @description Its id for `getAttachment` (`att_1`, `att_2`, … in list order). */
            id: string;
            filename: string | null;
            content_type: string;
            size: number;
            content_id: string | null;
            /** @description An executable, script, macro document or archive (`risk` says which); downloaded as bytes only. */
            risky: boolean;
            /** @description `executable`, `script`, `macro_document` or `archive`; null otherwise. */
            risk: string | null;
        };
        InboundFields: {
            /** @description MAIL FROM; empty for a bounce. */
            envelope_from: string | null;
            /** @description The RCPT TO this copy was routed by, as given. */
            envelope_recipient: string | null;
            /** @description The identity's address it was routed to (without the `+detail`). */
            routed_to: string | null;
            canonical: {
                from: string;
                to: string[];
                cc: string[];
                reply_to: string[];
            };
            /**
             * @description How much was read: `parsed`; `oversize` or `unparsed` (over a cap, or unreadable: the
             *     headers only, the original kept, see `getMessageRaw`); `quarantined` (a virus verdict
             *     FAIL: headers only).
             * @enum {string|null}
             */
            parse: "parsed" | "oversize" | "unparsed" | "quarantined" | null;
            /** @description The cap an `oversize` message passed (`size`, `parts`, `depth`, `header`). */
            cap: string | null;
            /**
             * @description `token` (the thread token of the sub-address), `in_reply_to`, `new`, or `duplicate` (a
             *     possible duplicate, in the thread of the earlier message with its Message-ID).
             */
            threaded_by: string | null;
            /** @description The headers that matter, in message order. */
            headers: {
                name: string;
                value: string;
            }[];
            /** @description SES's verdicts (`PASS`, `FAIL`, `GRAY`, `PROCESSING_FAILED`, `DISABLED`); null when not given. */
            verdicts: {
                spf: string | null;
                dkim: string | null;
                dmarc: string | null;
                spam: string | null;
                virus: string | null;
            };
            /**
             * @description Whether the message proves its From (docs/guides/receiving.md › Who sent it):
             *     `authenticated` (DMARC pass, or a DKIM pass aligned with the From's domain), `failed` (DMARC
             *     FAIL), `unverified` otherwise. Only `authenticated` mail makes its sender a known
             *     recipient.
             * @enum {string|null}
             */
            sender_auth: "authenticated" | "unverified" | "failed" | null;
            trust: components["schemas"]["Trust"];
            /**
             * @description An earlier message of the identity has this Message-ID and this copy was kept beside it
             *     (flag `possible_duplicate`, in that message's thread): another From (`other_sender`), or
             *     another authentication result (`authentication_differs`). Null otherwise; a plain
             *     duplicate is never stored (docs/guides/receiving.md › Duplicates).
             */
            possible_duplicate: {
                /** @description The earlier message's id. */
                of: string;
                /** @enum {string} */
                reason: "other_sender" | "authentication_differs";
            } | null;
            /** @description Why it counts as automatic mail (flag `auto_reply`); null for a person's mail. */
            auto: string | null;
            /**
             * @description A delivery status report kept as ordinary mail (flag `dsn`): it did not prove it answers
             *     one of this identity's messages, so it changed no delivery and suppressed nothing.
             */
            dsn_unmatched: boolean;
            /** @description The id SES (or the local MX) gave the received message. */
            ses_message_id: string | null;
        };
        ThreadSummary: {
            /** @description The thread (`thr_…`). */
            id: string;
            /** @description The subject of its first message. */
            subject: string;
            /** @description The addresses its messages came from or went to (From, To, Cc; never Bcc), lower case. */
            participants: string[];
            message_count: number;
            /**
             * Format: date-time
             * @description When the latest message was written into the thread.
             */
            last_message_at: string;
            /** @description The start of the latest message's new text, whitespace collapsed (at most 140 characters). */
            snippet: string;
            /** @description The conversation's labels (POST …/threads/{thread_id}/labels), in the order they were added. */
            labels: string[];
        };
        /** @description A ThreadSummary of a list; in search results (`q`) with the `highlight` of its newest matching message. */
        ThreadListItem: components["schemas"]["ThreadSummary"] & {
            highlight?: components["schemas"]["Highlight"];
        };
        ThreadList: {
            data: components["schemas"]["ThreadListItem"][];
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        Thread: components["schemas"]["ThreadSummary"] & {
            /**
             * @description Oldest first, both directions; the latest 100, less the oldest the budget left out.
             *     Each is a Message with `text` as the budget left it (`text_form`); its `html` and
             *     `extracted_text` are null (`body_omitted`).
             */
            messages: components["schemas"]["ThreadMessage"][];
            /** @description The thread has more than the 100 messages shown. */
            messages_truncated: boolean;
            /** @description What the budget did (`max_chars`, docs/guides/receiving.md › Reading a thread under a budget). */
            text_budget: {
                max_chars: number;
                /** @description The characters of every message's `text` together, at most `max_chars`. */
                used_chars: number;
                /** @description How many of the oldest messages were left out to fit. */
                messages_omitted: number;
                /** @description How many messages show their extracted text instead of their whole text. */
                messages_trimmed: number;
                /** @description The newest message alone was over the budget, its extracted text cut to `max_chars`. */
                newest_cut: boolean;
            };
        };
        ThreadMessage: components["schemas"]["Message"] & {
            /**
             * @description `whole`: `text` is the message's whole text; `extracted`: its extracted text; `cut`:
             *     its extracted text cut to the budget (the newest message alone over it).
             * @enum {string}
             */
            text_form: "whole" | "extracted" | "cut";
        };
        /** @description A Message of a list; in search results (`q`) with its `highlight`. */
        MessageListItem: components["schemas"]["Message"] & {
            highlight?: components["schemas"]["Highlight"];
        };
        /**
         * @description Where a search result matched: a plain-text excerpt (never HTML, at most 200 UTF-16 code
         *     units, whitespace shown as spaces) of the first field that matched, in the order subject,
         *     from, to, cc, text, extracted_text, attachment (file names), and the spans of the query's
         *     words and phrases inside it. Mail text is untrusted: show the excerpt as text.
         */
        Highlight: {
            /** @enum {string} */
            field: "subject" | "from" | "to" | "cc" | "text" | "extracted_text" | "attachment";
            text: string;
            /** @description Spans of `text`, in UTF-16 code units (JavaScript string offsets), `end` exclusive. */
            matches: {
                start: number;
                end: number;
            }[];
        };
        MessageList: {
            data: components["schemas"]["MessageListItem"][];
            /**
             * @description Pass as `cursor` for the next page; null on the last page. In a read on (`after`),
             *     the `after` cursor while more messages are waiting now, else null.
             */
            next_cursor: string | null;
            /**
             * @description In a read on (`after` given): the position after this page, to pass as `after` next
             *     time. Absent from a newest-first page.
             */
            after?: string;
        };
        /**
         * @description A JSON-RPC 2.0 error response, as the MCP transport answers a protocol fault of
         *     `POST /mcp` (not this API's Error envelope; the error codes are JSON-RPC's).
         */
        JsonRpcError: {
            /** @enum {string} */
            jsonrpc: "2.0";
            error: {
                /** @example -32700 */
                code: number;
                message: string;
                data?: unknown;
            };
            id: null;
        };
        Error: {
            error: {
                /**
                 * @description A stable code; see `x-error-codes`.
                 * @example idempotency_conflict
                 */
                code: string;
                /** @description What went wrong, for people; do not match on it. */
                message: string;
                /** @description Whether the same request may be sent again unchanged. */
                retryable: boolean;
                /** @description One sentence on how to correct the request. */
                fix: string;
                /** @description The same value as the Request-Id header. */
                request_id: string;
                /**
                 * @description Code-specific facts, `{}` when there are none: `errors[]` (`{ path, message }`)
                 *     for invalid_request and address errors, `required`, `retry_after`, `max_bytes`,
                 *     `pattern`, `original_message_id`, `reason`, `missing`, `max_recipients` and
                 *     `count`, `fields`, `allow`.
                 */
                details: {
                    [key: string]: unknown;
                };
            };
        };
        ResolveRequest: {
            /**
             * @description What you know happened to the message.
             * @enum {string}
             */
            outcome: "sent" | "not_sent";
        };
        SuppressionCreateRequest: {
            /** @description The address to suppress. Only its HMAC and a masked hint are kept. */
            address: string;
            /**
             * @description `unsubscribe` blocks elective mail only; `manual` blocks all mail unless `elective`.
             * @enum {string}
             */
            reason: "manual" | "unsubscribe";
            /**
             * Format: date-time
             * @description When the suppression lapses (RFC 3339, in the future). Absent = never.
             */
            expires_at?: string;
            /**
             * @description For `manual`: true blocks elective mail only, as an unsubscribe does. An
             *     `unsubscribe` cannot set it to false.
             */
            elective?: boolean;
        };
        Suppression: {
            /**
             * @description The masked address, e.g. `j***@example.net`.
             * @example j***@example.net
             */
            address_hint: string;
            /** @enum {string} */
            reason: "manual" | "unsubscribe" | "hard_bounce" | "complaint" | "provider";
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description Null for a permanent suppression.
             */
            expires_at: string | null;
            /** @description The message whose bounce or complaint created it; null for API suppressions. */
            source_message_id: string | null;
            /** @description True when it blocks elective mail only (every `unsubscribe`). */
            elective: boolean;
        };
        SuppressionList: {
            data: components["schemas"]["Suppression"][];
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        ListEntry: {
            /** @enum {string} */
            direction: "send" | "receive";
            /** @enum {string} */
            kind: "block" | "allow";
            /**
             * @description On a receive allow entry only: it admits mail that does not prove its From too
             *     (spoofable: anyone can write that From). Otherwise only authenticated mail is admitted.
             */
            unauthenticated?: boolean;
            /**
             * @description A lower-case address, or `@domain` with the domain in A-label form.
             * @example @example.net
             */
            entry: string;
            /** Format: date-time */
            created_at: string;
        };
        HeldList: {
            data: components["schemas"]["Message"][];
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
            /**
             * @description What the identity holds against its caps: past either cap, a message that would be held
             *     is not stored and counts in `dropped` (docs/guides/receiving.md › Held mail).
             */
            held: {
                count: number;
                bytes: number;
                dropped: number;
                caps: {
                    count: number;
                    bytes: number;
                };
            };
        };
        ListEntryList: {
            data: components["schemas"]["ListEntry"][];
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        Key: {
            id: string;
            name: string;
            /** @enum {string} */
            level: "platform" | "tenant" | "identity";
            /** @enum {string} */
            mode: "live" | "test";
            tenant_id: string | null;
            identity_id: string | null;
            permissions: string[];
            /** @description Draft-only: every send through it waits for approval. */
            sends_need_approval: boolean;
            /** @enum {string} */
            status: "active" | "revoked" | "expired";
            /** Format: date-time */
            expires_at: string | null;
            /**
             * Format: date-time
             * @description Written at most once a minute.
             */
            last_used_at: string | null;
            /** Format: date-time */
            revoked_at: string | null;
            /** @description The key that minted it, or `bootstrap` / `local-seed`. */
            created_by: string;
            /** Format: date-time */
            created_at: string;
        };
        KeyCreated: {
            /** @description The key itself (`pm_live_…` / `pm_test_…`), shown only in this answer. */
            secret?: string;
            /**
             * @description Present, false, on an idempotent replay, which carries no secret.
             * @enum {boolean}
             */
            secret_replayed?: false;
        } & components["schemas"]["Key"];
        KeyRotated: {
            /** @description The new secret, shown only in this answer. */
            secret?: string;
            /** Format: date-time */
            previous_secrets_expire_at?: string;
            /** @enum {boolean} */
            secret_replayed?: false;
        } & components["schemas"]["Key"];
        KeyList: {
            data: components["schemas"]["Key"][];
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        Me: {
            key_id: string;
            name: string | null;
            /** @enum {string} */
            level: "platform" | "tenant" | "identity";
            /** @enum {string|null} */
            mode: "live" | "test" | null;
            tenant_id: string | null;
            identity_id: string | null;
            permissions: string[];
            sends_need_approval: boolean;
            /** Format: date-time */
            expires_at: string | null;
        };
        Tenant: {
            id: string;
            slug: string | null;
            name: string;
            /** @enum {string} */
            mode: "test" | "live";
            /** @enum {string} */
            status: "active" | "suspended";
            timezone: string;
            policy: components["schemas"]["EffectivePolicy"];
            policy_version: number;
            /** Format: date-time */
            suspended_at: string | null;
            /** Format: date-time */
            created_at: string | null;
            /** Format: date-time */
            updated_at: string | null;
        };
        TenantList: {
            data: components["schemas"]["Tenant"][];
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        /** @description The effective policy: every field, the defaults filled in. */
        EffectivePolicy: {
            max_recipients?: number;
            daily_send_cap?: number;
            identity_daily_send_cap?: number;
            send_allowlist_only?: boolean;
            /** @enum {string} */
            large_attachments?: "reject" | "link";
            /**
             * @description What a live send does while its sending domain has no transport configured (or is not
             *     set up yet): `refuse` answers 422 `transport_unavailable`; `hold` accepts it as
             *     `undispatched`, and the sweeper dispatches it once the domain's transport is
             *     configured. Default `refuse`.
             * @enum {string}
             */
            unconfigured_transport?: "refuse" | "hold";
            abuse?: {
                complaint_rate_pause?: number;
                bounce_rate_pause?: number;
            };
            auto_reply?: {
                enabled?: boolean;
                max_automatic_exchanges?: number;
            };
            ai_disclosure?: {
                mode?: string;
                text?: string;
            };
        };
        TenantPolicyView: {
            tenant_id: string;
            policy_version: number;
            policy: components["schemas"]["EffectivePolicy"];
        };
        IdentityList: {
            data: components["schemas"]["Identity"][];
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        AuditEvent: {
            id: string;
            /** @description Null for platform items. */
            tenant_id: string | null;
            /** @description The key that made the change, or `bootstrap`, `local-seed`, `system`. */
            actor_key_id: string | null;
            action: string;
            /** @enum {string} */
            target_type: "api_key" | "tenant" | "identity" | "message";
            target_id: string | null;
            details: Record<string, never>;
            request_id: string | null;
            /** Format: date-time */
            created_at: string | null;
        };
        AuditEventList: {
            data: components["schemas"]["AuditEvent"][];
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        Health: {
            /** @enum {string} */
            status: "ok" | "degraded";
            version: string;
            checks: {
                /** @enum {string} */
                table: "ok" | "unreachable";
                /** @enum {string} */
                state_machines: "ok" | "unreachable" | "not_configured";
            };
        };
        /** @description This document. */
        OpenApiDocument: Record<string, never>;
        KeyCreateRequest: {
            name: string;
            /** @enum {string} */
            level: "platform" | "tenant" | "identity";
            tenant_id?: string;
            identity_id?: string;
            permissions: ("tenants:manage" | "keys:manage" | "policy:write" | "audit:read" | "suppressions:manage" | "identities:read" | "identities:write" | "messages:send" | "messages:read" | "messages:write" | "messages:approve" | "messages:hold" | "webhooks:read" | "webhooks:manage" | "events:read" | "domains:read" | "domains:write" | "templates:read" | "templates:write")[];
            /** Format: date-time */
            expires_at?: string;
            /**
             * @description Draft-only: every send through the key waits for a person's approval, whatever the
             *     identity's policy. A draft-only key mints and rotates only draft-only keys and approves
             *     nothing (403 `guardrail_locked`).
             */
            sends_need_approval?: boolean;
        };
        KeyRotateRequest: {
            /** @default 24 */
            overlap_hours: number;
        };
        TenantCreateRequest: {
            slug: string;
            name: string;
            /** @enum {string} */
            mode: "test" | "live";
            timezone?: string;
            policy?: {
                max_recipients?: number | null;
                daily_send_cap?: number | null;
                identity_daily_send_cap?: number | null;
                send_allowlist_only?: boolean | null;
                large_attachments?: ("reject" | "link") | null;
                unconfigured_transport?: ("refuse" | "hold") | null;
                abuse?: {
                    complaint_rate_pause?: number | null;
                    bounce_rate_pause?: number | null;
                } | null;
                auto_reply?: {
                    enabled?: boolean | null;
                    max_automatic_exchanges?: number | null;
                } | null;
            };
        };
        TenantUpdateRequest: {
            name?: string;
            timezone?: string;
            /** @enum {string} */
            status?: "active" | "suspended";
        };
        PolicyPatchRequest: {
            max_recipients?: number | null;
            daily_send_cap?: number | null;
            identity_daily_send_cap?: number | null;
            send_allowlist_only?: boolean | null;
            large_attachments?: ("reject" | "link") | null;
            /** @description `refuse` (default) or `hold`: see EffectivePolicy. `null` resets it. */
            unconfigured_transport?: ("refuse" | "hold") | null;
            abuse?: {
                complaint_rate_pause?: number | null;
                bounce_rate_pause?: number | null;
            } | null;
            auto_reply?: {
                enabled?: boolean | null;
                max_automatic_exchanges?: number | null;
            } | null;
            policy_version?: number;
        };
        IdentityCreateRequest: {
            username: string;
            /** @description The From display name. A CR or LF in it is refused (400 `invalid_request`, path `display_name`). */
            display_name?: string;
            owner?: {
                name: string;
                email: string;
            };
            domain?: string;
            send_policy?: {
                require_known_recipient?: boolean;
                daily_cap?: number;
                /**
                 * @description `true`: every send waits for a person's approval (accepted `pending_approval`, sent only
                 *     after `approveMessage`); `first_contact`: only a send to someone who is not yet a contact
                 *     waits. Default false.
                 */
                require_approval?: boolean | "first_contact";
            };
            receive_policy?: {
                /**
                 * @description What is held back from the agent: nothing (`none`, the default), mail that does not prove its
                 *     From (`unauthenticated`), or also mail whose proven From is no contact (`unknown`). The
                 *     receive lists and the stranger rate act whatever it says.
                 * @enum {string}
                 */
                hold?: "none" | "unauthenticated" | "unknown";
                /** @description Mail from senders neither known nor allowed shown per hour (default 10 per sender, 50 in all); past it, held with reason `rate`. */
                stranger_rate?: {
                    per_sender?: number;
                    total?: number;
                };
            };
            metadata?: {
                [key: string]: string;
            };
            client_id?: string;
        };
        DomainCreateRequest: {
            /** @description The domain, lower-cased (e.g. `mail.example.com`). */
            name: string;
            /**
             * @description How mail from it leaves: Amazon SES, the tenant's own SMTP relay, or Cloudflare Email
             *     Sending. Each takes only its own settings object (`ses`, `smtp`, `cloudflare`);
             *     `smtp` is required with transport `smtp`.
             * @enum {string}
             */
            transport: "ses" | "smtp" | "cloudflare";
            /**
             * @description Whether the Reply-To carries the thread token as a sub-address.
             * @default subaddress
             * @enum {string}
             */
            reply_token: "subaddress" | "none";
            /**
             * @description A custom MAIL FROM domain, a subdomain of `name` (e.g. `pm-bounce.mail.example.com`);
             *     transport `ses` only.
             */
            mail_from?: string;
            ses?: {
                /** @description The SES Region of the identity; default the deployment's. */
                region?: string;
                /** @description A configuration set of your own; default the deployment's. */
                configuration_set?: string;
            };
            smtp?: components["schemas"]["SmtpRelaySettings"];
            cloudflare?: {
                /** @description The Cloudflare account that owns the sending domain; default the deployment's. */
                account_id?: string;
            };
        };
        /**
         * @description The tenant's SMTP relay. `password` and `access_token` are write-only: stored in the
         *     domain's own secret, which only the SMTP transport reads; never answered or logged. With a
         *     `username`, create needs the secret of its `auth` mode.
         */
        SmtpRelaySettings: {
            /**
             * @description A DNS name or an IPv4 address. Every address it resolves to must be global unicast
             *     (no loopback, private, link-local, CGNAT, documentation, multicast or IPv4-mapped
             *     private address), checked here and again at every connection.
             */
            host: string;
            /**
             * @description 25, 465, 587 or 2525 (any other port is refused with 400 `smtp.port`). The local
             *     runtime (`npm start`) lifts the SSRF rules, this port rule included: there any port is
             *     accepted, at create time and at every connection.
             */
            port: number;
            /**
             * @description Default implicit TLS on 465, STARTTLS (required) on any other port: a relay whose EHLO
             *     does not advertise STARTTLS is refused with `smtp_tls_required`, also when it would
             *     accept the command, before any credential is sent.
             * @enum {string}
             */
            tls?: "implicit" | "starttls";
            /** @description The AUTH user; no AUTH without it. */
            username?: string;
            /**
             * @description AUTH PLAIN/LOGIN with `password`, or XOAUTH2 with `access_token`; default `password`.
             * @enum {string}
             */
            auth?: "password" | "xoauth2";
            /** @description Write-only. */
            password?: string;
            /** @description Write-only; an OAuth 2 bearer token for XOAUTH2. */
            access_token?: string;
        };
        DomainUpdateRequest: {
            /** @enum {string} */
            reply_token?: "subaddress" | "none";
            ses?: {
                /** @description Null goes back to the deployment's configuration set. */
                configuration_set?: string | null;
            };
            smtp?: components["schemas"]["SmtpRelaySettings"];
            cloudflare?: {
                /** @description Null goes back to the deployment's account. */
                account_id?: string | null;
            };
        };
        DnsRecord: {
            /** @enum {string} */
            type: "CNAME" | "MX" | "TXT";
            name: string;
            value: string;
            /** @enum {string} */
            purpose: "dkim" | "mail_from_mx" | "mail_from_spf" | "dmarc" | "inbound_mx";
            /** @description False for a record verification does not need: the DMARC suggestion, and the `inbound_mx` record that brings the domain's mail to SES receiving (the domain check reports it in `inbound_mx_published`). */
            required: boolean;
        };
        TemplateCreateRequest: {
            /** @description Unique in the tenant; what a send names in `template`. */
            name: string;
            subject: components["schemas"]["TemplateUpdateRequest"]["subject"];
            text?: components["schemas"]["TemplateUpdateRequest"]["text"];
            html?: components["schemas"]["TemplateUpdateRequest"]["html"];
            variables_schema: components["schemas"]["TemplateUpdateRequest"]["variables_schema"];
            category: components["schemas"]["TemplateUpdateRequest"]["category"];
            kind: components["schemas"]["TemplateUpdateRequest"]["kind"];
            description?: components["schemas"]["TemplateUpdateRequest"]["description"];
        };
        TemplateUpdateRequest: {
            /** @description Handlebars source of the subject (plain text; rendered onto one line). A CR or LF in it is refused (400 `invalid_request`, path `subject`). */
            subject: string;
            /** @description Handlebars source of the text part (plain text, not escaped). */
            text?: string;
            /** @description Handlebars source of the HTML part (`{{variable}}` escaped for HTML). */
            html?: string;
            /** @description JSON Schema (draft-07) of the variables, `"type": "object"` at the root. */
            variables_schema: {
                [key: string]: unknown;
            };
            /**
             * @description What the message is (a `marketing` template needs an unsubscribe link to render).
             * @enum {string}
             */
            category: "transactional" | "marketing";
            /**
             * @description Whether the recipient may refuse it (`elective` mail is blocked by an unsubscribe).
             * @enum {string}
             */
            kind: "transactional" | "elective";
            description?: string;
        };
        TemplateSummary: {
            name: string;
            version: number;
            subject: string;
            /** @enum {string} */
            category: "transactional" | "marketing";
            /** @enum {string} */
            kind: "transactional" | "elective";
            description: string | null;
            /**
             * Format: date-time
             * @description When the template was first created.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When this version was saved.
             */
            updated_at: string;
        };
        Template: {
            name: string;
            version: number;
            subject: string;
            /** @enum {string} */
            category: "transactional" | "marketing";
            /** @enum {string} */
            kind: "transactional" | "elective";
            description: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            text: string | null;
            html: string | null;
            variables_schema: Record<string, never>;
        };
        TemplateList: {
            data: components["schemas"]["TemplateSummary"][];
            /** @description Always null; every template of the tenant fits one page. */
            next_cursor: null;
        };
        Domain: {
            /** @description `dom_…`; null for the deployment's own test domains. */
            id: string | null;
            name: string;
            /** @enum {string} */
            transport: "ses" | "smtp" | "cloudflare" | "test";
            /** @enum {string} */
            reply_token: "subaddress" | "none";
            /**
             * @description `healthy` and `degraded` send as composed; `failing` and `suspended` fail their sends with
             *     `domain_failing_no_fallback` (the platform fallback comes with the Cloudflare transport);
             *     `removing` and `removed` reject them with `sender_domain_unavailable`. An `smtp` domain
             *     becomes `failing` at once, without waiting for a check, when a send's relay refuses the
             *     login (`smtp_auth_failed`) or advertises no STARTTLS (`smtp_tls_required`); a PATCH of
             *     the relay settings and a passing `POST …/verify` make it `healthy` again.
             * @enum {string}
             */
            state: "pending" | "verifying" | "healthy" | "degraded" | "failing" | "suspended" | "removing" | "removed";
            /**
             * @description Why, e.g. `dkim_pending`, `dkim_failed`, `mail_from_failed`, `ses_identity_missing`
             *     (SES); `smtp_probe_pending`, `smtp_tls_required`, `smtp_auth_failed`,
             *     `smtp_unreachable`, `smtp_relay_address_refused` (SMTP relay); `cloudflare_unchecked`.
             */
            state_reason: string | null;
            /** Format: date-time */
            checked_at: string | null;
            mail_from: string | null;
            ses: {
                region?: string | null;
                configuration_set?: string | null;
            } | null;
            /** @description The relay settings (transport `smtp`); the secret itself is never answered. */
            smtp: {
                host: string;
                port: number;
                /** @enum {string|null} */
                tls: "implicit" | "starttls" | null;
                username: string | null;
                /** @enum {string} */
                auth: "password" | "xoauth2";
                /** @description Whether a password or access token is stored for the relay. */
                credentials_stored: boolean;
            } | null;
            /** @description The Cloudflare settings (transport `cloudflare`). */
            cloudflare: {
                /** @description Null when the deployment's account is used. */
                account_id: string | null;
            } | null;
            dns_records: components["schemas"]["DnsRecord"][];
            /** @description Whether the domain's MX names SES receiving of the deployment's Region (`inbound-smtp.{region}.amazonaws.com`) at the last check; null when the deployment does not receive mail or DNS did not answer. Not required for the domain to send. */
            inbound_mx_published: boolean | null;
            /** Format: date-time */
            created_at: string | null;
            /** Format: date-time */
            updated_at: string | null;
        };
        DomainList: {
            data: components["schemas"]["Domain"][];
            next_cursor: null;
        };
    };
    responses: {
        /**
         * @description - `unauthenticated`: the Authorization header is missing, malformed or names an unknown key.
         *     - `key_revoked`: the key was revoked.
         *     - `key_expired`: the key passed its `expires_at`, or this secret was replaced by a rotation
         *       and its overlap has ended.
         */
        Unauthenticated: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description - `permission_denied`: the key lacks `messages:read` (`details.required`). */
        ReadPermissionDenied: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `identity_not_found`: no such identity, or the key does not cover it (the two are not
         *       distinguished).
         */
        IdentityNotFound: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `unavailable` (retryable): the table or another dependency is briefly unavailable. Wait
         *       `Retry-After` seconds and retry with the same Idempotency-Key.
         */
        Unavailable: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `internal_error` (retryable): an unexpected failure. Retry with the same Idempotency-Key;
         *       quote the request id if it persists.
         */
        InternalError: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description Any request whose path no route matches.
         *     - `route_not_found`: no route matches the path.
         */
        RouteNotFound: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description Any request to a known path with a method the path does not take.
         *     - `method_not_allowed`: `Allow` lists the methods the path takes (also in `details.allow`).
         */
        MethodNotAllowed: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                Allow: components["headers"]["Allow"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description Accepted, or a replay of an earlier accepted request with the same Idempotency-Key and
         *     body (`deduplicated: true` and `Idempotent-Replayed: true`).
         */
        MessageAccepted: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["SendMessageResponse"];
            };
        };
        /**
         * @description A dry run (`dry_run=true`) that found no error: what would happen to each recipient.
         *     Nothing was stored, sent, counted or locked.
         */
        DryRun: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["DryRunResult"];
            };
        };
        /**
         * @description The request is not valid; nothing was stored.
         *     - `idempotency_key_required`: no Idempotency-Key header (not asked for on a dry run).
         *     - `invalid_idempotency_key`: the key does not match `^[\x20-\x7E]{1,255}$` (not checked on
         *       a dry run).
         *     - `invalid_request`: `dry_run` is neither `true` nor `false`; the body is not JSON or does
         *       not match the operation's request schema; there is no recipient (for `replyAllMessage`:
         *       nobody is left once this identity's own addresses are taken out); a custom header
         *       repeats another in a different case, has an empty, multi-line, too long or
         *       not-allowed value, or the headers are too many or too large; the content breaks a limit
         *       (base64, subject length, inline parts without `content_id`); or, on `sendMessage`,
         *       `from_address` is not an active address of this identity. `details.errors[]` lists
         *       `{ path, message }`.
         *     - `address_invalid`: a recipient is not a valid address (`details.errors[]`). A reply's
         *       recipients come from the original message, so a malformed address there answers this
         *       too.
         *     - `address_unsupported`: a recipient has a non-ASCII local part (SMTPUTF8 is not supported).
         *     - `too_many_recipients`: to + cc + bcc, after de-duplication, exceed the tenant's limit
         *       (10 unless its policy says otherwise, never more than 49): `details.max_recipients`,
         *       `details.count`.
         *     - `marketing_requirements_missing`: `kind: marketing` without an HTTPS `unsubscribe.url`
         *       or without `consent` (`details.missing`). Only `sendMessage` takes those two fields, so
         *       a marketing reply, reply-all or forward always answers this.
         *     - `header_not_allowed`: a `headers` name is neither an allowed `X-` name nor one of the six
         *       named headers, or is reserved by pmail (`details.errors[]`, `path` `headers.{name}`).
         *     - `invalid_payload`: a send by template whose `variables` do not match the template's
         *       `variables_schema` (or pass 16 KiB of JSON): `details.errors[]` lists
         *       `{ instance_path, keyword, schema_path, message }` — where and which rule, never the
         *       value; `details.template`, `details.version`. Nothing is stored, reserved or counted.
         *     - A send by template also answers `invalid_request` for `subject`, `text`, `html` or
         *       `kind` beside `template` (the template gives them) and for `variables` without it, and
         *       `marketing_requirements_missing` for a `marketing` template without an HTTPS
         *       `unsubscribe.url` (it cannot render).
         */
        SendBadRequest: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The request is refused.
         *     - `permission_denied`: the key lacks `messages:send` (`details.required`).
         *     - `tenant_suspended`: the tenant is suspended.
         *     - `test_mode_recipient`: a test tenant may send only to `*@simulator.invalid` and to
         *       addresses of identities on this deployment (`details.fields`).
         */
        SendForbidden: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `identity_not_found`: no such identity, or the key does not cover it (the two are not
         *       distinguished); also an identity being deleted.
         *     - `message_not_found`: the identity has no message with this `message_id`.
         *     - `template_not_found`: `template` names no template of the identity's tenant (nothing is
         *       stored, reserved or counted).
         */
        TargetMessageNotFound: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The request conflicts with the key's history, the identity's state or the thread.
         *     - `idempotency_conflict`: the key was used with a different body, operation or message
         *       (`details.original_message_id`).
         *     - `request_in_progress` (retryable): a request with this key is still running; retry
         *       with the same key and body to get its result.
         *     - `identity_paused`: the identity is paused (`details.reason`).
         *     - `identity_owner_required`: the identity has no accountable owner (`details.missing`).
         *     - `auto_reply_not_allowed`: a `kind: auto_reply` message that may not be sent;
         *       `details.reason` is `not_a_reply` (only a reply or reply-all can be automatic),
         *       `replying_to_automated_mail` (the original is itself automated), `disabled_by_policy`,
         *       or `exchange_cap_reached` (the thread already has `details.max_automatic_exchanges`
         *       automatic replies in a row; 2 unless the tenant's policy says otherwise).
         *     - `domain_not_ready` (retryable): the sending domain is still being verified
         *       (`details.domain`, `details.state`); retry with the same key once it is.
         *     - `thread_busy` (retryable): another message of this thread holds the thread's lock and
         *       did not release it within 10 seconds. Wait `Retry-After` (also `details.retry_after`,
         *       1–60) seconds and retry with the same key. Only a threaded send (reply, reply-all,
         *       forward, `thread_id`) takes the lock, and a dry run never does.
         */
        SendConflict: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `payload_too_large`: the request body is larger than 7 MiB (`details.max_bytes`); the
         *       same limit as on the send routes, checked before the body is parsed.
         */
        PayloadTooLarge: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `payload_too_large`: the request body is larger than 7 MiB (`details.max_bytes`).
         *     - `message_too_large`: the composed MIME is larger than 5,242,880 − 8,192 bytes
         *       (`details.size_bytes`, `details.max_bytes`); send smaller attachments. When the
         *       tenant's policy has `large_attachments: "link"`, the request's largest attachments are
         *       first stored apart and replaced in the body by signed links (`getLink`) until the
         *       message fits, and this answer comes only when that is not enough. A forward's re-attached
         *       originals are never replaced; leave them out with `include_attachments: false`.
         */
        SendTooLarge: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `transport_unavailable`: the sending domain cannot carry this message
         *       (`details.reason`): `domain_not_configured` (no such domain, or it is being removed),
         *       `transport_not_configured`, or `marketing_needs_ses` (marketing mail needs an `ses` or
         *       `smtp` transport). A test tenant sends through the simulator and never gets this. Under
         *       the tenant policy `unconfigured_transport: "hold"`, a send refused for
         *       `transport_not_configured` or a missing domain is accepted instead with status
         *       `undispatched`, and the sweeper dispatches it once the transport is configured.
         *     - `recipient_blocked` (dry run only): a recipient is on the tenant's send-block list
         *       (`details.recipients[]`, `{ address, field }`). A real send accepts the message and
         *       makes that delivery `suppressed` instead.
         *     - `all_recipients_suppressed` (dry run only): no recipient would receive the message
         *       (`details.recipients[]`, as in `DryRunResult`). A real send accepts it with status
         *       `suppressed`.
         */
        SendUnprocessable: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `rate_limited` (retryable): too many sends for this identity (120 accepted sends a
         *       minute). Wait `Retry-After` seconds, then retry with the same Idempotency-Key. Every
         *       request is held to the limit, a replay and a dry run included, but only an accepted
         *       send uses it up.
         *     - `daily_cap_reached` (retryable): the identity's or the tenant's daily send cap is
         *       reached (`details.cap` is `identity` or `tenant`, `details.limit`); days follow the
         *       tenant's time zone. `details.resets_at` is the next midnight there, and `Retry-After`
         *       the seconds until then; retry with the same key after it. A send whose recipients are
         *       all suppressed does not count, and a dry run is not checked.
         */
        SendTooManyRequests: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `permission_denied`: the key lacks `webhooks:manage` (or, to read, `webhooks:read`)
         *       (`details.required`), or is limited to identities
         *       (`details.reason = "tenant_key_required"`).
         */
        WebhookForbidden: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description - `webhook_not_found`: no endpoint with this id belongs to the key's tenant. */
        WebhookNotFound: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `permission_denied`: the key lacks `domains:write` (or, to read, `domains:read`)
         *       (`details.required`), or a key limited to identities tried a change
         *       (`details.reason = "tenant_key_required"`).
         */
        DomainForbidden: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description - `tenant_not_found`: the id is not the key's tenant. */
        DomainTenantNotFound: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `permission_denied`: the key lacks `templates:write` (or, to read, `templates:read`)
         *       (`details.required`).
         */
        TemplateForbidden: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `tenant_not_found`: the tenant is not one the key reaches.
         *     - `template_not_found`: the tenant has no template with this name.
         */
        TemplateNotFound: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `invalid_request`: the body is not valid JSON or breaks the request schema
         *       (`details.errors[]`).
         *     - `invalid_template`: a source does not parse (or uses an unknown helper), there is no
         *       `text` and no `html`, a limit is passed, a marketing template is not elective, or Ajv
         *       (strict mode) refuses `variables_schema`; `details.errors[]` names each (`path`,
         *       `message`).
         */
        TemplateInvalid: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description - `tenant_not_found`: the id is not the key's tenant.
         *     - `domain_not_found`: no domain with this id belongs to the tenant.
         */
        DomainNotFound: {
            headers: {
                "Request-Id": components["headers"]["Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /**
         * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
         *     404 `tenant_not_found`, alike.
         */
        TenantId: string;
        /**
         * @description The key (`key_…`). An id that is malformed, unknown or outside the calling key's reach
         *     answers 404 `key_not_found`, alike.
         */
        KeyId: string;
        /**
         * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
         *     answers 404 `identity_not_found`, alike.
         */
        IdentityId: string;
        /**
         * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
         *     404 `message_not_found`.
         */
        MessageId: string;
        /**
         * @description 1–255 printable ASCII characters (0x20–0x7E). Generate one per message and reuse it on
         *     every retry of that message. Kept 30 days, scoped to the identity, and bound to the
         *     operation and, for a reply, reply-all or forward, to the message answered. Required on
         *     every send; a dry run (`dry_run=true`) may leave it out and ignores one it is given: it
         *     is neither checked, looked up nor recorded.
         */
        IdempotencyKey: string;
        /**
         * @description `true` runs the checks up to and including composition, then stops: nothing is stored or
         *     sent, and the two checks after composition, the daily caps and the thread lock, are
         *     skipped (so a dry run never answers `daily_cap_reached` or `thread_busy`). The answer is
         *     200 with a `DryRunResult`, or the error the request would get, or 422
         *     `recipient_blocked` / `all_recipients_suppressed`. The rate limit is checked but not used
         *     up. Only `true` and `false` are accepted; any other value answers 400 `invalid_request`
         *     (`details.errors[0].path = "dry_run"`).
         */
        DryRun: boolean;
    };
    requestBodies: never;
    headers: {
        /** @description The id of this request (`req_…`), also in `error.request_id`. */
        "Request-Id": string;
        /**
         * @description `true` when this response is the stored answer to an earlier request with the same
         *     Idempotency-Key and body; absent otherwise.
         */
        "Idempotent-Replayed": "true";
        /** @description Seconds to wait before retrying. */
        "Retry-After": number;
        /** @description The methods the path accepts, comma-separated. */
        Allow: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The identity. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Identity"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /** @description - `permission_denied`: the key lacks `identities:read` (`details.required`). */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["IdentityNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The identity, now deleted. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Identity"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `guardrail_locked`: an identity key (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `identity_not_found`: the identity is unknown, deleted or out of the key's reach (alike). */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    updateIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "active"
                 *     }
                 */
                "application/json": components["schemas"]["IdentityUpdateRequest"];
            };
        };
        responses: {
            /** @description The identity after the change. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Identity"];
                };
            };
            /**
             * @description - `invalid_request`: the body is not JSON, names no field or an unknown one, or a
             *       field is not valid (`details.errors[]`).
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `identities:write` (`details.required`; a pause
             *       alone also passes with `messages:send`).
             *     - `guardrail_locked`: an identity key tried a change other than a pause
             *       (`details.change`, `details.required_level = "tenant"`); nothing was changed.
             *     - `scope_denied`: a key below platform level set `send_policy.daily_cap` above the
             *       tenant's `identity_daily_send_cap` (`details.field`, `details.ceiling`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["IdentityNotFound"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listMessages: {
        parameters: {
            query?: {
                /** @description Only outbound (sent) or inbound (received) messages. */
                direction?: "inbound" | "outbound";
                /**
                 * @description Only messages with this status, e.g. `pending_approval`: the sends waiting for a
                 *     person's approval.
                 */
                status?: "pending_approval" | "queued" | "undispatched" | "submitted" | "delivered" | "deferred" | "bounced" | "complained" | "rejected" | "failed" | "uncertain" | "suppressed" | "canceled" | "received";
                /** @description The page size. */
                limit?: number;
                /** @description The opaque `next_cursor` of the previous page. */
                cursor?: string;
                /**
                 * @description Read on: only messages committed after this message id (`msg_…`, one of this
                 *     identity's) or this `after` cursor of a previous answer, in commit order. Not with
                 *     `cursor` or `status`.
                 */
                after?: string;
                /** @description With `after`, only messages of this thread of the identity. */
                thread_id?: string;
                /**
                 * @description Full-text search (docs/guides/receiving.md › Search): words and "quoted phrases", all
                 *     of which must match, case- and accent-insensitive, in the subject, the participants'
                 *     names and addresses, the text, the extracted text and the attachment names. 1–256
                 *     characters, at most 16 words (else 400 `invalid_query`). With `q` the page holds the
                 *     matching messages newest first by id, each with its `highlight`; the other filters
                 *     apply too. Not with `after`.
                 */
                q?: string;
                /** @description One of its labels, exactly (a message's own labels; a thread's own, not its messages'). */
                label?: string;
                /** @description An address (any case), or a domain (`example.com`: any address at it): the sender. */
                from?: string;
                /** @description An address or a domain, as `from`: any To or Cc recipient. */
                to?: string;
                /** @description A part of the subject, case- and accent-insensitive. */
                subject?: string;
                /** @description Only messages written at or after this time (RFC 3339). */
                since?: string;
                /** @description Only messages written at or before this time (RFC 3339). */
                until?: string;
                /** @description `true`: only messages with an attachment; `false`: only those without. */
                has_attachment?: "true" | "false";
            };
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of messages. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageList"];
                };
            };
            /**
             * @description - `invalid_request`: a query parameter is unknown or out of range, `cursor` or `after`
             *       was not produced by pmail, `after` came with `cursor`, or `thread_id` without
             *       `after` (`details.errors[]`).
             *     - `invalid_query`: `q` is empty, longer than 256 characters, has no word or more than 16.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["ReadPermissionDenied"];
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `message_not_found`: `after` is a message id that is no message of this identity.
             *     - `thread_not_found`: `thread_id` is not a thread of this identity.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    sendMessage: {
        parameters: {
            query?: {
                /**
                 * @description `true` runs the checks up to and including composition, then stops: nothing is stored or
                 *     sent, and the two checks after composition, the daily caps and the thread lock, are
                 *     skipped (so a dry run never answers `daily_cap_reached` or `thread_busy`). The answer is
                 *     200 with a `DryRunResult`, or the error the request would get, or 422
                 *     `recipient_blocked` / `all_recipients_suppressed`. The rate limit is checked but not used
                 *     up. Only `true` and `false` are accepted; any other value answers 400 `invalid_request`
                 *     (`details.errors[0].path = "dry_run"`).
                 */
                dry_run?: components["parameters"]["DryRun"];
            };
            header: {
                /**
                 * @description 1–255 printable ASCII characters (0x20–0x7E). Generate one per message and reuse it on
                 *     every retry of that message. Kept 30 days, scoped to the identity, and bound to the
                 *     operation and, for a reply, reply-all or forward, to the message answered. Required on
                 *     every send; a dry run (`dry_run=true`) may leave it out and ignores one it is given: it
                 *     is neither checked, looked up nor recorded.
                 */
                "Idempotency-Key": components["parameters"]["IdempotencyKey"];
            };
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "to": [
                 *         {
                 *           "address": "deliver@simulator.invalid",
                 *           "name": "Test Recipient"
                 *         }
                 *       ],
                 *       "subject": "Your order has shipped",
                 *       "text": "Order 2291 is on its way.",
                 *       "headers": {
                 *         "X-Order-Id": "2291",
                 *         "Importance": "high"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["SendMessageRequest"];
            };
        };
        responses: {
            200: components["responses"]["DryRun"];
            202: components["responses"]["MessageAccepted"];
            400: components["responses"]["SendBadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["SendForbidden"];
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it (the two are not
             *       distinguished); also an identity being deleted.
             *     - `thread_not_found`: `thread_id` is not a thread of this identity.
             *     - `template_not_found`: `template` names no template of the identity's tenant (nothing
             *       is stored, reserved or counted).
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            409: components["responses"]["SendConflict"];
            413: components["responses"]["SendTooLarge"];
            422: components["responses"]["SendUnprocessable"];
            429: components["responses"]["SendTooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    sendMessageBatch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "messages": [
                 *         {
                 *           "idempotency_key": "order-2291-shipped",
                 *           "to": [
                 *             "deliver@simulator.invalid"
                 *           ],
                 *           "subject": "Your order has shipped",
                 *           "text": "Order 2291 is on its way."
                 *         },
                 *         {
                 *           "idempotency_key": "order-2292-shipped",
                 *           "to": [
                 *             "deliver@simulator.invalid"
                 *           ],
                 *           "subject": "Your order has shipped",
                 *           "text": "Order 2292 is on its way."
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["SendBatchRequest"];
            };
        };
        responses: {
            /**
             * @description The batch ran: one result per message, in order. A message's `status` and `error`
             *     are those of `sendMessage` (its `x-error-codes`), or 503 `not_attempted` for a
             *     message the batch's time budget did not reach.
             */
            207: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SendBatchResponse"];
                };
            };
            /**
             * @description - `invalid_request`: the batch as a whole: an `Idempotency-Key` header, no messages or
             *       more than 100, more than 1,000 recipients, a message without a valid
             *       `idempotency_key`, or a key given twice (`details.errors[]` names each). No message
             *       ran.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /** @description - `permission_denied`: the key lacks `messages:send` (`details.required`). */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["IdentityNotFound"];
            /**
             * @description - `payload_too_large`: the body is larger than 4 MiB (`details.max_bytes`): split the
             *       batch. No message ran.
             */
            413: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The message. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["ReadPermissionDenied"];
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `message_not_found`: the identity has no message with this id.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `messages:hold` (an identity key holds it only when
             *       a person minted it with it).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `message_not_found`: the identity has no received message with this id.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `message_not_held`: the message is not held. */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getMessageRaw: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stored original (RFC 5322). */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    /** @description `attachment; filename="<message id>.eml"`. */
                    "Content-Disposition"?: string;
                    /** @description Always `nosniff`. */
                    "X-Content-Type-Options"?: "nosniff";
                    [name: string]: unknown;
                };
                content: {
                    "message/rfc822": string;
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["ReadPermissionDenied"];
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `message_not_found`: the identity has no message with this id (or its original is no
             *       longer stored).
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listThreads: {
        parameters: {
            query?: {
                /** @description The page size. */
                limit?: number;
                /** @description The opaque `next_cursor` of the previous page. */
                cursor?: string;
                /**
                 * @description Full-text search, as on listMessages: words and "quoted phrases", all of which must
                 *     match in one of the thread's messages. 1–256 characters, at most 16 words (else 400
                 *     `invalid_query`).
                 */
                q?: string;
                /** @description One of its labels, exactly (a message's own labels; a thread's own, not its messages'). */
                label?: string;
                /** @description An address (any case), or a domain (`example.com`: any address at it): any participant. */
                from?: string;
                /** @description An address or a domain, as `from`: any participant. */
                to?: string;
                /** @description A part of the subject, case- and accent-insensitive. */
                subject?: string;
                /** @description Only threads whose latest message is at or after this time (RFC 3339). */
                since?: string;
                /** @description Only threads whose latest message is at or before this time (RFC 3339). */
                until?: string;
            };
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of threads. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThreadList"];
                };
            };
            /**
             * @description - `invalid_request`: a query parameter is unknown or out of range, or `cursor` was not
             *       produced by pmail (`details.errors[]`).
             *     - `invalid_query`: `q` is empty, longer than 256 characters, has no word or more than 16.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["ReadPermissionDenied"];
            404: components["responses"]["IdentityNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getThread: {
        parameters: {
            query?: {
                /** @description The text budget, in characters (Unicode code points) of all the messages' `text` together. */
                max_chars?: number;
                /**
                 * @description `whole` (the newest messages whole while they fit) or `extracted` (every message as
                 *     its extracted text from the start; the budget then only leaves out and cuts).
                 */
                text?: "whole" | "extracted";
            };
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The thread (`thr_…`, a message's `thread_id`). An id that is malformed, unknown, or a
                 *     thread of another identity or tenant answers 404 `thread_not_found`, alike.
                 */
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The thread. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Thread"];
                };
            };
            /** @description - `invalid_request`: a query parameter is unknown or out of range (`details.errors[]`). */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["ReadPermissionDenied"];
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `thread_not_found`: the identity has no thread with this id.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getAttachment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
                /** @description The attachment's `id` in the message's `attachments` (`att_1`, `att_2`, …). */
                attachment_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attachment. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    /** @description `attachment; filename="<ASCII name>"; filename*=UTF-8''<name>`. */
                    "Content-Disposition"?: string;
                    /** @description Always `nosniff`. */
                    "X-Content-Type-Options"?: "nosniff";
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["ReadPermissionDenied"];
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `message_not_found`: the identity has no message with this id.
             *     - `attachment_not_found`: the message lists no attachment with this id, or its
             *       original is not stored (a quarantined or unparsed message), or its body is withheld
             *       (`body_withheld`).
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    cancelMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The canceled message. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /** @description `permission_denied`: the key lacks `messages:send`. */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `message_not_found`: the identity has no outbound message with this id.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description `not_cancelable`: the message is not queued, an attempt is sending it, or some of its
             *     recipients were already submitted.
             */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    resolveMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional. The same key with the same body replays the first answer. */
                "Idempotency-Key"?: string;
            };
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResolveRequest"];
            };
        };
        responses: {
            /** @description The resolved message. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    /** @description `true` when this answer is the replay of an earlier request with this key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            /**
             * @description - `invalid_idempotency_key`: the Idempotency-Key is not 1–255 printable ASCII characters.
             *     - `invalid_request`: the body is not `{"outcome": "sent" | "not_sent"}`.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /** @description `permission_denied`: the key lacks `messages:write`. */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `message_not_found`: the identity has no outbound message with this id.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `idempotency_conflict`: this Idempotency-Key was used with another body.
             *     - `request_in_progress`: a request with this key is still running.
             *     - `not_uncertain`: the message is not `uncertain`, no delivery is `uncertain` any
             *       more, or the outcome is `not_sent` while a provider event already reported a
             *       recipient (`details.provider_reported: true`): resolve never overwrites what the
             *       deliveries say.
             */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    retryMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The message as it is now (`queued` right after the retry that re-queued it). */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /** @description `permission_denied`: the key lacks `messages:write`. */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `message_not_found`: the identity has no outbound message with this id.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `not_retryable`: the message is not `failed` (and no retry re-queued it), or its
             *       failure was a refusal (`details.status`, `details.status_reason`).
             *     - `resolve_required`: the message is `uncertain`, or failed because it was resolved
             *       `not_sent`: it may have been sent, so only resolve decides; never retried.
             */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    approveMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The message as it is now (`queued`, or `undispatched` when its transport is held, or `suppressed`). */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `messages:approve`.
             *     - `tenant_suspended`: the tenant is suspended; the message is now `failed` (`details.message`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `message_not_found`: the identity has no outbound message with this id.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `not_pending_approval`: the message is not waiting for approval (`details.status`,
             *       `details.status_reason`): approved or rejected already, or never pending.
             *     - `identity_paused`, `identity_owner_required`, `domain_not_ready`: refused at approval; the
             *       message is now `failed` (`details.message`).
             */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description `transport_unavailable`: the sending domain cannot send this message; the message is now
             *     `failed` (`details.message`).
             */
            422: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `daily_cap_reached`: a cap was reached while the send waited; the message is now `failed`
             *       with this reason (`details.cap`, `details.limit`, `details.message`).
             *     - `rate_limited`: the identity's rate window is full; the message stays pending, approve again
             *       after `Retry-After`.
             */
            429: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    releaseMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The message as it is now (`held` null). */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `messages:hold` (an identity key holds it only when
             *       a person minted it with it).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `message_not_found`: the identity has no received message with this id.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `message_not_held`: the message was never held. */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    labelMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "add": [
                 *         "needs-reply"
                 *       ],
                 *       "remove": [
                 *         "handled"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["LabelChange"];
            };
        };
        responses: {
            /** @description The message's labels after the change. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageLabels"];
                };
            };
            /**
             * @description - `invalid_request`: the body is not a change (`details.errors`), or a label is both added and removed.
             *     - `invalid_label`: a label to add is outside the alphabet or length (`details.errors`).
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /** @description - `permission_denied`: the key lacks `messages:write`. */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `message_not_found`: the identity has no such message this key may see (held mail without `messages:hold` included).
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `too_many_labels`: the change would leave more than 20 labels (`details.max_labels`). */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    labelThread: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /** @description The thread (`thr_…`); one of another identity or tenant answers 404 `thread_not_found`. */
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "add": [
                 *         "needs-reply"
                 *       ],
                 *       "remove": [
                 *         "handled"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["LabelChange"];
            };
        };
        responses: {
            /** @description The thread's labels after the change. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThreadLabels"];
                };
            };
            /**
             * @description - `invalid_request`: the body is not a change (`details.errors`), or a label is both added and removed.
             *     - `invalid_label`: a label to add is outside the alphabet or length (`details.errors`).
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /** @description - `permission_denied`: the key lacks `messages:write`. */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `thread_not_found`: the identity has no such thread this key may see (held mail without `messages:hold` included).
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `too_many_labels`: the change would leave more than 20 labels (`details.max_labels`). */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listHeld: {
        parameters: {
            query?: {
                limit?: number;
                /** @description `next_cursor` of the previous page. */
                cursor?: string;
            };
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of held messages (their bodies left out, as a list's are). */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HeldList"];
                };
            };
            /** @description `invalid_request`: `limit` or `cursor` is not valid. */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `messages:hold` (an identity key holds it only when
             *       a person minted it with it).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `identity_not_found`: no such identity, or the key does not cover it. */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    rejectMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rejected message (`canceled`, `rejected_by_reviewer`). */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /** @description - `permission_denied`: the key lacks `messages:approve`. */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `identity_not_found`: no such identity, or the key does not cover it.
             *     - `message_not_found`: the identity has no outbound message with this id.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description `not_pending_approval`: the message is not waiting for approval (`details.status`,
             *     `details.status_reason`).
             */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    replyMessage: {
        parameters: {
            query?: {
                /**
                 * @description `true` runs the checks up to and including composition, then stops: nothing is stored or
                 *     sent, and the two checks after composition, the daily caps and the thread lock, are
                 *     skipped (so a dry run never answers `daily_cap_reached` or `thread_busy`). The answer is
                 *     200 with a `DryRunResult`, or the error the request would get, or 422
                 *     `recipient_blocked` / `all_recipients_suppressed`. The rate limit is checked but not used
                 *     up. Only `true` and `false` are accepted; any other value answers 400 `invalid_request`
                 *     (`details.errors[0].path = "dry_run"`).
                 */
                dry_run?: components["parameters"]["DryRun"];
            };
            header: {
                /**
                 * @description 1–255 printable ASCII characters (0x20–0x7E). Generate one per message and reuse it on
                 *     every retry of that message. Kept 30 days, scoped to the identity, and bound to the
                 *     operation and, for a reply, reply-all or forward, to the message answered. Required on
                 *     every send; a dry run (`dry_run=true`) may leave it out and ignores one it is given: it
                 *     is neither checked, looked up nor recorded.
                 */
                "Idempotency-Key": components["parameters"]["IdempotencyKey"];
            };
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "text": "Thanks, the replacement part ships tomorrow.",
                 *       "labels": [
                 *         "support"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["ReplyMessageRequest"];
            };
        };
        responses: {
            200: components["responses"]["DryRun"];
            202: components["responses"]["MessageAccepted"];
            400: components["responses"]["SendBadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["SendForbidden"];
            404: components["responses"]["TargetMessageNotFound"];
            409: components["responses"]["SendConflict"];
            413: components["responses"]["SendTooLarge"];
            422: components["responses"]["SendUnprocessable"];
            429: components["responses"]["SendTooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    replyAllMessage: {
        parameters: {
            query?: {
                /**
                 * @description `true` runs the checks up to and including composition, then stops: nothing is stored or
                 *     sent, and the two checks after composition, the daily caps and the thread lock, are
                 *     skipped (so a dry run never answers `daily_cap_reached` or `thread_busy`). The answer is
                 *     200 with a `DryRunResult`, or the error the request would get, or 422
                 *     `recipient_blocked` / `all_recipients_suppressed`. The rate limit is checked but not used
                 *     up. Only `true` and `false` are accepted; any other value answers 400 `invalid_request`
                 *     (`details.errors[0].path = "dry_run"`).
                 */
                dry_run?: components["parameters"]["DryRun"];
            };
            header: {
                /**
                 * @description 1–255 printable ASCII characters (0x20–0x7E). Generate one per message and reuse it on
                 *     every retry of that message. Kept 30 days, scoped to the identity, and bound to the
                 *     operation and, for a reply, reply-all or forward, to the message answered. Required on
                 *     every send; a dry run (`dry_run=true`) may leave it out and ignores one it is given: it
                 *     is neither checked, looked up nor recorded.
                 */
                "Idempotency-Key": components["parameters"]["IdempotencyKey"];
            };
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "text": "Adding the team so everyone has the new delivery date.",
                 *       "html": "<p>Adding the team so everyone has the new delivery date.</p>"
                 *     }
                 */
                "application/json": components["schemas"]["ReplyMessageRequest"];
            };
        };
        responses: {
            200: components["responses"]["DryRun"];
            202: components["responses"]["MessageAccepted"];
            400: components["responses"]["SendBadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["SendForbidden"];
            404: components["responses"]["TargetMessageNotFound"];
            409: components["responses"]["SendConflict"];
            413: components["responses"]["SendTooLarge"];
            422: components["responses"]["SendUnprocessable"];
            429: components["responses"]["SendTooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    forwardMessage: {
        parameters: {
            query?: {
                /**
                 * @description `true` runs the checks up to and including composition, then stops: nothing is stored or
                 *     sent, and the two checks after composition, the daily caps and the thread lock, are
                 *     skipped (so a dry run never answers `daily_cap_reached` or `thread_busy`). The answer is
                 *     200 with a `DryRunResult`, or the error the request would get, or 422
                 *     `recipient_blocked` / `all_recipients_suppressed`. The rate limit is checked but not used
                 *     up. Only `true` and `false` are accepted; any other value answers 400 `invalid_request`
                 *     (`details.errors[0].path = "dry_run"`).
                 */
                dry_run?: components["parameters"]["DryRun"];
            };
            header: {
                /**
                 * @description 1–255 printable ASCII characters (0x20–0x7E). Generate one per message and reuse it on
                 *     every retry of that message. Kept 30 days, scoped to the identity, and bound to the
                 *     operation and, for a reply, reply-all or forward, to the message answered. Required on
                 *     every send; a dry run (`dry_run=true`) may leave it out and ignores one it is given: it
                 *     is neither checked, looked up nor recorded.
                 */
                "Idempotency-Key": components["parameters"]["IdempotencyKey"];
            };
            path: {
                /**
                 * @description The identity (`idn_…`). An id that is malformed, unknown or outside the key's scope
                 *     answers 404 `identity_not_found`, alike.
                 */
                identity_id: components["parameters"]["IdentityId"];
                /**
                 * @description The message (`msg_…`). An id that is malformed or not a message of this identity answers
                 *     404 `message_not_found`.
                 */
                message_id: components["parameters"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "to": [
                 *         "accounts@example.com"
                 *       ],
                 *       "text": "Forwarding the invoice for your records.",
                 *       "include_attachments": true
                 *     }
                 */
                "application/json": components["schemas"]["ForwardMessageRequest"];
            };
        };
        responses: {
            200: components["responses"]["DryRun"];
            202: components["responses"]["MessageAccepted"];
            400: components["responses"]["SendBadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["SendForbidden"];
            404: components["responses"]["TargetMessageNotFound"];
            409: components["responses"]["SendConflict"];
            413: components["responses"]["SendTooLarge"];
            422: components["responses"]["SendUnprocessable"];
            429: components["responses"]["SendTooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /**
                 * @description Only the events of this identity (`data.identity_id`). It must be in the key's reach:
                 *     else `404 identity_not_found`, as for an identity that does not exist.
                 */
                identity_id?: string;
                /**
                 * @description Only events committed after this event id, in commit order. An id that names no
                 *     event of the tenant (expired, or written before events had numbers) reads from the
                 *     beginning.
                 */
                after?: string;
                /** @description The page size. */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of events. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventList"];
                };
            };
            /** @description - `invalid_request`: a query parameter is unknown or out of range (`details.errors[]`). */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `events:read` (`details.required`).
             *     - `scope_denied`: a platform key (the feed is a tenant's).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `identity_not_found`: `identity_id` names no identity in the key's reach. */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    createStreamTicket: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["StreamTicketRequest"];
            };
        };
        responses: {
            /** @description A ticket, for one stream within 60 seconds. */
            201: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StreamTicket"];
                };
            };
            /**
             * @description - `invalid_request`: the body is not valid (`details.errors[]`): an unknown field, a
             *       type that is not an event type or a prefix like `message.*`, more than 20 types.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `events:read` (`details.required`).
             *     - `scope_denied`: a platform key (the stream is a tenant's).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `identity_not_found`: `identity_id` names no identity in the key's reach. */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant's endpoints. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["WebhookForbidden"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://hooks.example.com/pmail",
                 *       "event_types": [
                 *         "message.delivered",
                 *         "message.bounced"
                 *       ],
                 *       "description": "Orders service"
                 *     }
                 */
                "application/json": components["schemas"]["WebhookCreateRequest"];
            };
        };
        responses: {
            /** @description The endpoint, with its secret (shown once). */
            201: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookCreated"];
                };
            };
            /**
             * @description - `invalid_request`: the body is not valid (`details.errors[]`): the URL is not https
             *       (plain http is accepted only for 127.0.0.1 and localhost on a local stack), carries
             *       credentials or a fragment, names an internal address or name, an event type is
             *       malformed, or a field is unknown. Internal: an IP literal that is not public
             *       unicast (loopback, private, link-local, CGNAT, site-local, unique-local,
             *       benchmarking, documentation, multicast, broadcast, reserved; an IPv4-mapped or NAT64
             *       address by the IPv4 address inside it; 6to4 and Teredo), and the names `localhost`,
             *       `*.localhost`, `*.internal`, `*.local`, `*.home.arpa` and one-label names (a
             *       trailing dot changes nothing). Where a name resolves is checked at every delivery:
             *       an endpoint whose host resolves to any internal address is not connected to, and
             *       the attempt fails and is retried on the schedule.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["WebhookForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            /**
             * @description - `webhook_limit_reached`: the tenant already has 20 endpoints (`details.limit`);
             *       delete one first.
             */
            422: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id. */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["WebhookForbidden"];
            404: components["responses"]["WebhookNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id. */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint was deleted. */
            204: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["WebhookForbidden"];
            404: components["responses"]["WebhookNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id. */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's recent attempts. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["WebhookForbidden"];
            404: components["responses"]["WebhookNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    testWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id. */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The test event is queued for delivery. */
            202: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookTestQueued"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["WebhookForbidden"];
            404: components["responses"]["WebhookNotFound"];
            /**
             * @description - `webhook_disabled`: the endpoint is disabled (`details.disabled_reason`); it
             *       receives no events.
             */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The signed token of the link, as it appears in the message: base64url without padding of
                 *     `l1:{kid}:att:{tenant_id}:{identity_id}:{message_id}:{attachment_id}:{expires_unix_s}`
                 *     followed by the first 16 bytes of its HMAC-SHA256 under link key `{kid}`.
                 */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description The attachment's bytes, always as a download. `Content-Type` is the type given at
             *     send time when it is one of `application/pdf`, `image/png`, `image/jpeg`, `image/gif`,
             *     `image/webp`, `text/plain`, `text/csv`, `application/zip` or an Office Open XML type,
             *     and `application/octet-stream` for anything else (HTML, SVG, scripts, …).
             */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    /**
                     * @description `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded name>`
                     *     (RFC 6266, RFC 5987).
                     */
                    "Content-Disposition"?: string;
                    /** @description Always `nosniff`. */
                    "X-Content-Type-Options"?: "nosniff";
                    /** @description Always `sandbox`. */
                    "Content-Security-Policy"?: "sandbox";
                    /** @description `private, max-age=<seconds>`: at most an hour, and never past the link's expiry. */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /**
             * @description - `attachment_not_found`: the link is malformed, was not signed by this deployment, has
             *       expired, or its attachment is no longer stored (the cases are not distinguished).
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    searchTenantMessages: {
        parameters: {
            query: {
                /** @description Only outbound (sent) or inbound (received) messages. */
                direction?: "inbound" | "outbound";
                /** @description The page size. */
                limit?: number;
                /** @description The opaque `next_cursor` of the previous page. */
                cursor?: string;
                /** @description Only messages of this thread. */
                thread_id?: string;
                /**
                 * @description Full-text search (docs/guides/receiving.md › Search): words and "quoted phrases", all
                 *     of which must match, case- and accent-insensitive, in the subject, the participants'
                 *     names and addresses, the text, the extracted text and the attachment names. 1–256
                 *     characters, at most 16 words (else 400 `invalid_query`). With `q` the page holds the
                 *     matching messages newest first by id, each with its `highlight`; the other filters
                 *     apply too. Not with `after`.
                 */
                q: string;
                /** @description One of its labels, exactly (a message's own labels; a thread's own, not its messages'). */
                label?: string;
                /** @description An address (any case), or a domain (`example.com`: any address at it): the sender. */
                from?: string;
                /** @description An address or a domain, as `from`: any To or Cc recipient. */
                to?: string;
                /** @description A part of the subject, case- and accent-insensitive. */
                subject?: string;
                /** @description Only messages written at or after this time (RFC 3339). */
                since?: string;
                /** @description Only messages written at or before this time (RFC 3339). */
                until?: string;
                /** @description `true`: only messages with an attachment; `false`: only those without. */
                has_attachment?: "true" | "false";
            };
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): a tenant key's own tenant, or any with a platform key. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of search results. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageList"];
                };
            };
            /**
             * @description - `invalid_request`: a query parameter is unknown or out of range, or `cursor` was not
             *       produced by pmail (`details.errors[]`).
             *     - `invalid_query`: `q` is empty, longer than 256 characters, has no word or more than 16.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `messages:read` (`details.required`).
             *     - `scope_denied`: an identity key: a tenant-wide search needs a tenant or platform key.
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `tenant_not_found`: the id is not the key's tenant. */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listSuppressions: {
        parameters: {
            query?: {
                /** @description The page size. */
                limit?: number;
                /** @description The opaque `next_cursor` of the previous page. */
                cursor?: string;
                /** @description Only suppressions with this reason. */
                reason?: "manual" | "unsubscribe" | "hard_bounce" | "complaint" | "provider";
                /**
                 * @description An exact lookup: the page holds this address's suppression, or nothing. Matched
                 *     case-insensitively; an internationalised domain matches its A-label form.
                 */
                address?: string;
            };
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of suppressions. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SuppressionList"];
                };
            };
            /**
             * @description - `invalid_request`: a query parameter is unknown or out of range, or `cursor` was not
             *       produced by pmail (`details.errors[]`).
             *     - `address_invalid`, `address_unsupported`: `address` is not an address pmail can send to.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `suppressions:manage` (`details.required`).
             *     - `guardrail_locked`: an identity key, whatever it holds: the tenant's suppressions
             *       and lists need a tenant or platform key (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `tenant_not_found`: the id is not the key's tenant. */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    createSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "address": "jo@example.net",
                 *       "reason": "unsubscribe"
                 *     }
                 */
                "application/json": components["schemas"]["SuppressionCreateRequest"];
            };
        };
        responses: {
            /** @description The address was already suppressed; the suppression in force. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            /** @description The suppression was created. */
            201: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            /**
             * @description - `invalid_request`: the body is not valid JSON or breaks the schema, `expires_at` is
             *       not in the future, or an `unsubscribe` has `elective: false` (`details.errors[]`).
             *     - `address_invalid`, `address_unsupported`: `address` is not an address pmail can send to.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `suppressions:manage` (`details.required`).
             *     - `guardrail_locked`: an identity key, whatever it holds: the tenant's suppressions
             *       and lists need a tenant or platform key (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `tenant_not_found`: the id is not the key's tenant. */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /** @description The suppressed address, URL-encoded; matched case-insensitively. */
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The suppression was removed. */
            204: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description - `address_invalid`, `address_unsupported`: the path does not name an address pmail
             *       can send to.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `suppressions:manage` (`details.required`).
             *     - `guardrail_locked`: an identity key, whatever it holds: the tenant's suppressions
             *       and lists need a tenant or platform key (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `tenant_not_found`: the id is not the key's tenant.
             *     - `suppression_not_found`: the address is not suppressed.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listListEntries: {
        parameters: {
            query?: {
                /** @description The page size. */
                limit?: number;
                /** @description The opaque `next_cursor` of the previous page. */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /**
                 * @description `send`: recipients of outbound mail; `receive`: senders of received mail
                 *     (docs/guides/receiving.md › Held mail). Any other value answers 400 `invalid_request`.
                 */
                direction: "send" | "receive";
                /**
                 * @description `block`: a listed recipient is not sent to (`policy: send_block`). `allow`: with the
                 *     tenant policy `send_allowlist_only`, only listed recipients are sent to
                 *     (`policy: not_on_allowlist` for the others).
                 */
                kind: "block" | "allow";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of entries. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListEntryList"];
                };
            };
            /**
             * @description - `invalid_request`: `direction` or `kind` is not one of its values, a query parameter
             *       is unknown or out of range, or `cursor` was not produced by pmail (`details.errors[]`).
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `suppressions:manage` (`details.required`).
             *     - `guardrail_locked`: an identity key, whatever it holds: the tenant's suppressions
             *       and lists need a tenant or platform key (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `tenant_not_found`: the id is not the key's tenant. */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getListEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /**
                 * @description `send`: recipients of outbound mail; `receive`: senders of received mail
                 *     (docs/guides/receiving.md › Held mail). Any other value answers 400 `invalid_request`.
                 */
                direction: "send" | "receive";
                /** @description `block` or `allow` (see `listListEntries`). */
                kind: "block" | "allow";
                /**
                 * @description An address (`jo@example.net`) or a whole domain (`@example.net`), URL-encoded. Matched
                 *     case-insensitively; an internationalised domain is stored and shown in A-label form
                 *     (`@xn--bcher-kva.example`).
                 */
                entry: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The entry. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListEntry"];
                };
            };
            /**
             * @description - `invalid_request`: `direction` or `kind` is not one of its values, or `entry` is not
             *       an address or `@domain` (`details.errors[0].path = "entry"`).
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `suppressions:manage` (`details.required`).
             *     - `guardrail_locked`: an identity key, whatever it holds: the tenant's suppressions
             *       and lists need a tenant or platform key (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `tenant_not_found`: the id is not the key's tenant.
             *     - `list_entry_not_found`: the entry is not on the list.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    putListEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /**
                 * @description `send`: recipients of outbound mail; `receive`: senders of received mail
                 *     (docs/guides/receiving.md › Held mail). Any other value answers 400 `invalid_request`.
                 */
                direction: "send" | "receive";
                /** @description `block` or `allow` (see `listListEntries`). */
                kind: "block" | "allow";
                /**
                 * @description An address (`jo@example.net`) or a whole domain (`@example.net`), URL-encoded. Matched
                 *     case-insensitively; an internationalised domain is stored and shown in A-label form
                 *     (`@xn--bcher-kva.example`).
                 */
                entry: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "unauthenticated": true
                 *     }
                 */
                "application/json": {
                    unauthenticated?: boolean;
                };
            };
        };
        responses: {
            /** @description The entry was already on the list. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListEntry"];
                };
            };
            /** @description The entry was added. */
            201: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListEntry"];
                };
            };
            /**
             * @description - `invalid_request`: `direction` or `kind` is not one of its values, `entry` is not an
             *       address or `@domain` (`details.errors[0].path = "entry"`), or the body is not `{}`.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `suppressions:manage` (`details.required`).
             *     - `guardrail_locked`: an identity key, whatever it holds: the tenant's suppressions
             *       and lists need a tenant or platform key (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `tenant_not_found`: the id is not the key's tenant. */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description `list_entry_conflict`: the entry is on the list with another `unauthenticated`
             *     (`details.entry`); delete it, then put it again.
             */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteListEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /**
                 * @description `send`: recipients of outbound mail; `receive`: senders of received mail
                 *     (docs/guides/receiving.md › Held mail). Any other value answers 400 `invalid_request`.
                 */
                direction: "send" | "receive";
                /** @description `block` or `allow` (see `listListEntries`). */
                kind: "block" | "allow";
                /**
                 * @description An address (`jo@example.net`) or a whole domain (`@example.net`), URL-encoded. Matched
                 *     case-insensitively; an internationalised domain is stored and shown in A-label form
                 *     (`@xn--bcher-kva.example`).
                 */
                entry: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The entry was removed. */
            204: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description - `invalid_request`: `direction` or `kind` is not one of its values, or `entry` is not
             *       an address or `@domain` (`details.errors[0].path = "entry"`).
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks `suppressions:manage` (`details.required`).
             *     - `guardrail_locked`: an identity key, whatever it holds: the tenant's suppressions
             *       and lists need a tenant or platform key (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `tenant_not_found`: the id is not the key's tenant.
             *     - `list_entry_not_found`: the entry is not on the list.
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listKeys: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: number;
                /** @description `next_cursor` of the previous page. */
                cursor?: string;
                /** @description Platform keys: only this tenant's keys. */
                tenant_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of keys. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyList"];
                };
            };
            /** @description - `invalid_request`: the body or query is not valid (`details.errors[]`; `details.reason = "permission_not_allowed_for_level"` for a permission the new key's level cannot hold). */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /** @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`). */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    createKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional. The same key and request from the same API key replays the first answer (`Idempotent-Replayed: true`) without any secret it carried (`secret_replayed: false`); kept 30 days. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "bookings-agent",
                 *       "level": "identity",
                 *       "identity_id": "idn_01jz8m4n7q2r5t8v1w3x6y9z0a",
                 *       "permissions": [
                 *         "messages:send",
                 *         "messages:read"
                 *       ],
                 *       "expires_at": "2027-10-09T00:00:00Z"
                 *     }
                 */
                "application/json": components["schemas"]["KeyCreateRequest"];
            };
        };
        responses: {
            /** @description The key, with its secret (shown once), or on a replay without it and with `secret_replayed: false`. */
            201: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyCreated"];
                };
            };
            /**
             * @description - `invalid_request`: the body or query is not valid (`details.errors[]`; `details.reason = "permission_not_allowed_for_level"` for a permission the new key's level cannot hold).
             *     - `invalid_idempotency_key`: the Idempotency-Key is not 1–255 printable ASCII characters.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `key_scope_exceeded`: the key named, or the key asked for, is wider than the calling key: a higher level or a permission the caller lacks, or (from an identity key) a later `expires_at` than the caller's.
             *     - `guardrail_locked`: an identity key asked for a key holding `messages:approve`.
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `tenant_not_found`: the tenant is unknown or out of the key's reach (alike).
             *     - `identity_not_found`: the identity is unknown, deleted or out of the key's reach (alike).
             */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `idempotency_conflict`: this Idempotency-Key was used by this key with another request.
             *     - `request_in_progress`: a request with this Idempotency-Key is still running; retry shortly.
             */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The key (`key_…`). An id that is malformed, unknown or outside the calling key's reach
                 *     answers 404 `key_not_found`, alike.
                 */
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Key"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `key_scope_exceeded`: the key named, or the key asked for, is wider than the calling key: a higher level or a permission the caller lacks.
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `key_not_found`: the key is unknown or out of the calling key's reach (alike). */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    revokeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The key (`key_…`). An id that is malformed, unknown or outside the calling key's reach
                 *     answers 404 `key_not_found`, alike.
                 */
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key is revoked. */
            204: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `key_scope_exceeded`: the key named, or the key asked for, is wider than the calling key: a higher level or a permission the caller lacks.
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `key_not_found`: the key is unknown or out of the calling key's reach (alike). */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    rotateKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional. The same key and request from the same API key replays the first answer (`Idempotent-Replayed: true`) without any secret it carried (`secret_replayed: false`); kept 30 days. */
                "Idempotency-Key"?: string;
            };
            path: {
                /**
                 * @description The key (`key_…`). An id that is malformed, unknown or outside the calling key's reach
                 *     answers 404 `key_not_found`, alike.
                 */
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "overlap_hours": 24
                 *     }
                 */
                "application/json": components["schemas"]["KeyRotateRequest"];
            };
        };
        responses: {
            /** @description The key with its new secret (shown once), or on a replay without it. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyRotated"];
                };
            };
            /**
             * @description - `invalid_request`: the body or query is not valid (`details.errors[]`; `details.reason = "permission_not_allowed_for_level"` for a permission the new key's level cannot hold).
             *     - `invalid_idempotency_key`: the Idempotency-Key is not 1–255 printable ASCII characters.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `key_scope_exceeded`: the key named, or the key asked for, is wider than the calling key: a higher level or a permission the caller lacks.
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `key_not_found`: the key is unknown or out of the calling key's reach (alike). */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `idempotency_conflict`: this Idempotency-Key was used by this key with another request.
             *     - `request_in_progress`: a request with this Idempotency-Key is still running; retry shortly.
             */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The calling key. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Me"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listAuditEvents: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: number;
                /** @description `next_cursor` of the previous page. */
                cursor?: string;
                /** @description The tenant whose items to read. */
                tenant_id?: string;
                /** @description Only this action. */
                action?: string;
                /** @description Only changes by this key. */
                actor_key_id?: string;
                /** @description Only changes to this key, tenant, identity or message. */
                target_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audit items. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditEventList"];
                };
            };
            /** @description - `invalid_request`: the body or query is not valid (`details.errors[]`; `details.reason = "permission_not_allowed_for_level"` for a permission the new key's level cannot hold). */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `scope_denied`: the key's level cannot do this (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `tenant_not_found`: the tenant is unknown or out of the key's reach (alike). */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listTenants: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: number;
                /** @description `next_cursor` of the previous page. */
                cursor?: string;
                /** @description Only this status. */
                status?: "active" | "suspended";
                /** @description Only this mode. */
                mode?: "test" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tenants. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantList"];
                };
            };
            /** @description - `invalid_request`: the body or query is not valid (`details.errors[]`; `details.reason = "permission_not_allowed_for_level"` for a permission the new key's level cannot hold). */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `scope_denied`: the key's level cannot do this (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    createTenant: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional. The same key and request from the same API key replays the first answer (`Idempotent-Replayed: true`) without any secret it carried (`secret_replayed: false`); kept 30 days. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "slug": "acme",
                 *       "name": "Acme Car Hire",
                 *       "mode": "live",
                 *       "timezone": "Europe/London",
                 *       "policy": {
                 *         "identity_daily_send_cap": 500
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["TenantCreateRequest"];
            };
        };
        responses: {
            /** @description The tenant. */
            201: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tenant"];
                };
            };
            /**
             * @description - `invalid_request`: the body or query is not valid (`details.errors[]`; `details.reason = "permission_not_allowed_for_level"` for a permission the new key's level cannot hold).
             *     - `invalid_idempotency_key`: the Idempotency-Key is not 1–255 printable ASCII characters.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `scope_denied`: the key's level cannot do this (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `tenant_exists`: another tenant has this slug.
             *     - `idempotency_conflict`: this Idempotency-Key was used by this key with another request.
             *     - `request_in_progress`: a request with this Idempotency-Key is still running; retry shortly.
             */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getTenant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tenant"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `scope_denied`: the key's level cannot do this (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `tenant_not_found`: the tenant is unknown or out of the key's reach (alike). */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    updateTenant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "suspended"
                 *     }
                 */
                "application/json": components["schemas"]["TenantUpdateRequest"];
            };
        };
        responses: {
            /** @description The tenant after the change. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tenant"];
                };
            };
            /** @description - `invalid_request`: the body or query is not valid (`details.errors[]`; `details.reason = "permission_not_allowed_for_level"` for a permission the new key's level cannot hold). */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `scope_denied`: the key's level cannot do this (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `tenant_not_found`: the tenant is unknown or out of the key's reach (alike). */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getTenantPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The policy. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantPolicyView"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `scope_denied`: the key's level cannot do this (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `tenant_not_found`: the tenant is unknown or out of the key's reach (alike). */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    updateTenantPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "max_recipients": 20,
                 *       "abuse": {
                 *         "bounce_rate_pause": null
                 *       },
                 *       "policy_version": 3
                 *     }
                 */
                "application/json": components["schemas"]["PolicyPatchRequest"];
            };
        };
        responses: {
            /** @description The policy after the change. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantPolicyView"];
                };
            };
            /** @description - `invalid_request`: the body or query is not valid (`details.errors[]`; `details.reason = "permission_not_allowed_for_level"` for a permission the new key's level cannot hold). */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `guardrail_locked`: an identity key (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `tenant_not_found`: the tenant is unknown or out of the key's reach (alike). */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `policy_version_conflict`: `policy_version` is not the current one (`details.policy_version`). */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listIdentities: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: number;
                /** @description `next_cursor` of the previous page. */
                cursor?: string;
                /** @description Only this status. */
                status?: "active" | "paused" | "deleted";
                /** @description Only the identity made with this client_id. */
                client_id?: string;
            };
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of identities. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdentityList"];
                };
            };
            /** @description - `invalid_request`: the body or query is not valid (`details.errors[]`; `details.reason = "permission_not_allowed_for_level"` for a permission the new key's level cannot hold). */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `scope_denied`: the key's level cannot do this (`details.required_level`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `tenant_not_found`: the tenant is unknown or out of the key's reach (alike). */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    createIdentity: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional. The same key and request from the same API key replays the first answer (`Idempotent-Replayed: true`) without any secret it carried (`secret_replayed: false`); kept 30 days. */
                "Idempotency-Key"?: string;
            };
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "username": "bookings",
                 *       "display_name": "Acme Car Hire",
                 *       "owner": {
                 *         "name": "Sam Patel",
                 *         "email": "sam@acme.example"
                 *       },
                 *       "client_id": "acme:bookings",
                 *       "metadata": {
                 *         "operator_id": "op_123"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["IdentityCreateRequest"];
            };
        };
        responses: {
            /** @description The identity (200 with the existing one for a repeated `client_id`). */
            201: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Identity"];
                };
            };
            /**
             * @description - `invalid_request`: the body or query is not valid (`details.errors[]`; `details.reason = "permission_not_allowed_for_level"` for a permission the new key's level cannot hold).
             *     - `address_invalid`: the username does not lower-case to `^[a-z0-9][a-z0-9._-]{0,23}$` or is reserved (`details.reason = "reserved"`).
             *     - `address_unsupported`: the username is not ASCII.
             *     - `invalid_idempotency_key`: the Idempotency-Key is not 1–255 printable ASCII characters.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /**
             * @description - `permission_denied`: the key lacks the permission this operation needs (`details.required`).
             *     - `guardrail_locked`: an identity key (`details.required_level`).
             *     - `scope_denied`: a key below platform level set `send_policy.daily_cap` above the
             *       tenant's `identity_daily_send_cap` (`details.field`, `details.ceiling`).
             */
            403: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description - `tenant_not_found`: the tenant is unknown or out of the key's reach (alike). */
            404: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description - `address_taken`: the address `{username}@{domain}` belongs to another identity or was retired.
             *     - `client_id_conflict`: this `client_id` made an identity from another body (`details.identity_id`).
             *     - `idempotency_conflict`: this Idempotency-Key was used by this key with another request.
             *     - `request_in_progress`: a request with this Idempotency-Key is still running; retry shortly.
             */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            /** @description - `domain_unavailable`: no usable sending domain: `details.reason` is `domain_required` (a live tenant must name one), `domain_not_found` (not a domain of this tenant) or `domain_removed`. */
            422: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    mcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "jsonrpc": "2.0",
                 *       "id": 1,
                 *       "method": "tools/call",
                 *       "params": {
                 *         "name": "send_email",
                 *         "arguments": {
                 *           "identity_id": "idn_01jz8m4n7q2r5t8v1w3x6y9z0c",
                 *           "idempotency_key": "invoice-42-reminder",
                 *           "to": [
                 *             "deliver@simulator.invalid"
                 *           ],
                 *           "subject": "Invoice 42",
                 *           "text": "A reminder."
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    jsonrpc: "2.0";
                    id?: string | number;
                    method?: string;
                    params?: Record<string, never>;
                };
            };
        };
        responses: {
            /** @description The JSON-RPC response. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description A notification or response was accepted; no body. */
            202: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description A JSON-RPC parse error (`-32700`), an invalid request (`-32600`), or an unsupported
             *     `MCP-Protocol-Version` (`-32000`); answered by the MCP transport.
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcError"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            /** @description `Accept` lacks `application/json` or `text/event-stream` (`-32000`). */
            406: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcError"];
                };
            };
            /** @description `Content-Type` is not `application/json` (`-32000`). */
            415: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcError"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The health report. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    getOpenApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenApiDocument"];
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    getConsole: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The console page. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    getConsoleAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A file the console page names (its name carries a hash of its content). */
                asset: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                    "text/css": string;
                };
            };
            404: components["responses"]["RouteNotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    listDomains: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The domains. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainList"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["DomainForbidden"];
            404: components["responses"]["DomainTenantNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    createDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "mail.example.com",
                 *       "transport": "ses",
                 *       "mail_from": "pm-bounce.mail.example.com"
                 *     }
                 */
                "application/json": components["schemas"]["DomainCreateRequest"];
            };
        };
        responses: {
            /** @description The domain, with the DNS records to publish (SES). */
            201: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /**
             * @description - `invalid_request`: the body is not valid JSON or breaks the schema, or the relay host
             *       or port breaks the SSRF rules (`details.errors[]`, e.g. path `smtp.host`).
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["DomainForbidden"];
            404: components["responses"]["DomainTenantNotFound"];
            /**
             * @description - `domain_exists`: the name is already a sending domain (of this or another tenant) that
             *       is not removed.
             */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /** @description The domain's id. */
                domain_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The domain. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["DomainForbidden"];
            404: components["responses"]["DomainNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /** @description The domain's id. */
                domain_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The domain, removed. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["DomainForbidden"];
            404: components["responses"]["DomainNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    updateDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /** @description The domain's id. */
                domain_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reply_token": "none"
                 *     }
                 */
                "application/json": components["schemas"]["DomainUpdateRequest"];
            };
        };
        responses: {
            /** @description The domain as changed. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description - `invalid_request`: the body is not valid JSON or breaks the schema (`details.errors[]`). */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["DomainForbidden"];
            404: components["responses"]["DomainNotFound"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    verifyDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tenant (`ten_…`): the key's own tenant. Any other id answers 404 `tenant_not_found`. */
                tenant_id: string;
                /** @description The domain's id. */
                domain_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The domain as checked. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["DomainForbidden"];
            404: components["responses"]["DomainNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listTemplates: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The templates. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TemplateList"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["TemplateForbidden"];
            404: components["responses"]["DomainTenantNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    createTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "magic_link",
                 *       "subject": "Sign in to {{app}}",
                 *       "text": "Hello {{name}}, sign in: {{link}}",
                 *       "html": "<p>Hello {{name}}</p><p><a href=\"{{link}}\">Sign in</a></p>",
                 *       "variables_schema": {
                 *         "type": "object",
                 *         "properties": {
                 *           "name": {
                 *             "type": "string",
                 *             "maxLength": 80
                 *           },
                 *           "link": {
                 *             "type": "string",
                 *             "format": "uri"
                 *           },
                 *           "app": {
                 *             "type": "string"
                 *           }
                 *         },
                 *         "required": [
                 *           "name",
                 *           "link"
                 *         ],
                 *         "additionalProperties": false
                 *       },
                 *       "category": "transactional",
                 *       "kind": "transactional"
                 *     }
                 */
                "application/json": components["schemas"]["TemplateCreateRequest"];
            };
        };
        responses: {
            /** @description The template, version 1. */
            201: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            400: components["responses"]["TemplateInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["TemplateForbidden"];
            404: components["responses"]["DomainTenantNotFound"];
            /** @description - `template_exists`: the tenant has a template with this name; change it with `PUT`. */
            409: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            /** @description - `template_limit_reached`: the tenant keeps 100 templates (`details.limit`). */
            422: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
                /** @description The template's name. */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The template. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["TemplateForbidden"];
            404: components["responses"]["TemplateNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    updateTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
                /** @description The template's name. */
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "subject": "Your sign-in link",
                 *       "text": "Hello {{name}}, sign in: {{link}}",
                 *       "variables_schema": {
                 *         "type": "object",
                 *         "properties": {
                 *           "name": {
                 *             "type": "string"
                 *           },
                 *           "link": {
                 *             "type": "string",
                 *             "format": "uri"
                 *           }
                 *         },
                 *         "required": [
                 *           "link"
                 *         ]
                 *       },
                 *       "category": "transactional",
                 *       "kind": "transactional"
                 *     }
                 */
                "application/json": components["schemas"]["TemplateUpdateRequest"];
            };
        };
        responses: {
            /** @description The template's new version. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            400: components["responses"]["TemplateInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["TemplateForbidden"];
            404: components["responses"]["TemplateNotFound"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
                /** @description The template's name. */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["TemplateForbidden"];
            404: components["responses"]["TemplateNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    previewTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant (`ten_…`). An id that is malformed, unknown or outside the key's reach answers
                 *     404 `tenant_not_found`, alike.
                 */
                tenant_id: components["parameters"]["TenantId"];
                /** @description The template's name. */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["TemplatePreviewRequest"];
            };
        };
        responses: {
            /** @description The rendered subject and bodies. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TemplatePreview"];
                };
            };
            /**
             * @description - `invalid_request`: the body is not JSON or names an unknown field.
             *     - `invalid_payload`: the variables do not match the template's schema, or the template
             *       failed to render with them (`details.errors[]`).
             */
            400: {
                headers: {
                    "Request-Id": components["headers"]["Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["TemplateForbidden"];
            404: components["responses"]["TemplateNotFound"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
}
