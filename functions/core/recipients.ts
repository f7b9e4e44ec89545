import { domainToASCII } from 'node:url';
import { addressInvalid, addressUnsupported, noRecipients, tooManyRecipients } from './errors.ts';
import type { Mailbox, RecipientField } from './model.ts';

/** A recipient as the API takes it: a bare address or `{ address, name }`. */
export type RecipientInput = string | { address: string; name?: string };

export interface Recipient extends Mailbox {
  field: RecipientField;
  /**
   * Two columns for the recipient: the string the caller typed, kept (only when it
   * differs from `address`) so an operator sees what was actually addressed. Nothing matches on it.
   */
  typed?: string;
}

/**
 * Two columns: the recipient key, the only form anything matches a recipient on
 * (suppressions, contacts, send lists, provider answers): trimmed, lower case, A-label domain.
 * `Ada@example.com` and `ada@example.com` are one mailbox.
 */
export function canonicalAddress(address: string): string {
  const value = address.trim().toLowerCase();
  const at = value.lastIndexOf('@');
  if (at < 0) return value;
  const domain = value.slice(at + 1);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: checking for non-ASCII on purpose
  const ascii = /[^\x00-\x7F]/.test(domain) ? domainToASCII(domain) || domain : domain;
  return `${value.slice(0, at)}@${ascii}`;
}

// RFC 5321 dot-atom local part (quoted local parts are refused as unsupported).
const LOCAL_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Normalise one address: the domain lower-cased and in A-label form, the local part kept as typed
 * (it is matched case-insensitively). Throws address_invalid / address_unsupported (check 6).
 */
export function normaliseAddress(raw: string, path: string): string {
  const value = raw.trim();
  const at = value.lastIndexOf('@');
  const fail = (message: string) => addressInvalid(path, message);
  if (at <= 0 || at === value.length - 1) throw fail(`${path} is not an email address`);
  const local = value.slice(0, at);
  const domainInput = value.slice(at + 1);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: checking for non-ASCII on purpose
  if (/[^\x00-\x7F]/.test(local)) {
    throw addressUnsupported(path, `${path} has a non-ASCII local part (SMTPUTF8 is not supported)`);
  }
  if (!LOCAL_ATOM.test(local) || local.length > 64) throw fail(`${path} has an invalid local part`);
  const domain = domainToASCII(domainInput.toLowerCase());
  if (
    !domain ||
    domain.length > 253 ||
    !domain.includes('.') ||
    !domain.split('.').every((l) => LABEL.test(l))
  ) {
    throw fail(`${path} has an invalid domain`);
  }
  const address = `${local}@${domain}`;
  if (address.length > 254) throw fail(`${path} is longer than 254 characters`);
  return address;
}

function normaliseName(name: string | undefined): string | undefined {
  const n = name?.replace(/[\r\n]+/g, ' ').trim();
  return n ? n.slice(0, 256) : undefined;
}

/**
 * Check 6: valid addresses, case-insensitive dedupe across to, cc and bcc (the first field an
 * address appears in wins), at least one recipient.
 */
export function normaliseRecipients(input: Partial<Record<RecipientField, RecipientInput[]>>): Recipient[] {
  const seen = new Set<string>();
  const out: Recipient[] = [];
  for (const field of ['to', 'cc', 'bcc'] as const) {
    (input[field] ?? []).forEach((r, i) => {
      const path = `${field}[${i}]`;
      const { address, name } = typeof r === 'string' ? { address: r, name: undefined } : r;
      const normalised = normaliseAddress(address, path);
      const key = canonicalAddress(normalised);
      if (seen.has(key)) return;
      seen.add(key);
      out.push({
        address: normalised,
        field,
        ...(normaliseName(name) ? { name: normaliseName(name) } : {}),
        ...(address !== normalised ? { typed: address.slice(0, 320) } : {}),
      });
    });
  }
  if (out.length === 0) {
    throw noRecipients();
  }
  return out;
}

export const DEFAULT_MAX_RECIPIENTS = 10;
export const HARD_MAX_RECIPIENTS = 49;

/** Check 7: to + cc + bcc ≤ policy.max_recipients (default 10, never above 49). */
export function checkRecipientCount(recipients: Recipient[], policyMax: number | undefined): void {
  const max = Math.min(policyMax ?? DEFAULT_MAX_RECIPIENTS, HARD_MAX_RECIPIENTS);
  if (recipients.length > max) {
    throw tooManyRecipients(max, recipients.length);
  }
}

export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/** A masked form for logs and hints: j***@example.com. Never log a full address. */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  return `${address.slice(0, 1)}***@${address.slice(at + 1)}`;
}

/** The address without a `+tag` sub-address: `agent+t01abc@x.example` → `agent@x.example`. */
export function baseAddress(address: string): string {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const plus = local.indexOf('+');
  return plus > 0 ? `${local.slice(0, plus)}${address.slice(at)}` : address;
}
