/**
 * The typed command the four sends carry from the HTTP handler to the submit use case: the handler
 * parses and validates the JSON body (functions/api/send.schema.ts, whose output is checked against
 * these types at compile time) and passes this, so the use case never reads the API layer.
 */

export type RecipientField = string | { address: string; name?: string };

export interface AttachmentCommand {
  filename: string;
  content_type: string;
  content_base64: string;
  disposition?: 'attachment' | 'inline';
  content_id?: string;
}

export type SendKind = 'transactional' | 'marketing' | 'auto_reply';

/** Category and kind (functions/core/job-kind.ts): may the recipient refuse it. */
export type SendConsentKind = 'transactional' | 'elective';

/** The fields any of send, reply, reply-all and forward may carry, as the submit path reads them. */
export interface SendCommand {
  to?: RecipientField[];
  cc?: RecipientField[];
  bcc?: RecipientField[];
  subject?: string;
  text?: string;
  html?: string;
  attachments?: AttachmentCommand[];
  kind: SendKind;
  /**
   * The consent `kind` (core/job-kind.ts › consentKindOf): set from a template by the submit path,
   * never by an API caller (the request schema does not accept it). Absent: derived from `kind`.
   */
  consent_kind?: SendConsentKind;
  labels?: string[];
  headers?: Record<string, string>;
  metadata?: Record<string, string>;
  send_at?: string;
  /** A scheduled send in a thread, canceled at its time if an answer came (core/unless-reply.ts). */
  unless_reply?: boolean;
  unsubscribe?: { url: string; mailto?: string };
  consent?: { basis: string; recorded_at?: string };
  thread_id?: string;
  from_address?: string;
  include_attachments?: boolean;
  /** A send by template: the template's name and its variables, as the caller sent them. */
  template?: string;
  variables?: Record<string, unknown>;
  /**
   * Set by functions/send/template.ts once the template is resolved and rendered (never by a
   * caller): what the message records. subject, text, html and kind then come from the template.
   */
  rendered_template?: { name: string; version: number; category: 'transactional' | 'marketing' };
}

/** A parsed send request: the typed command and the JSON as received (what the fingerprint hashes). */
export interface ParsedSend {
  body: SendCommand;
  raw: unknown;
}
