import type { AuthResults, AuthVerdict, Trust } from './model.ts';
import { canonicalAddress, domainOf } from './recipients.ts';

/**
 * Who sent a received message (docs/guides/receiving.md › Who sent it, docs/security.md › Received
 * mail): the SPF, DKIM, DMARC and ARC verdicts, where they came from, and what a reader is shown of
 * them (`inbound.trust`). Pure: the local MX computes the verdicts with mailauth
 * (functions/local/mx-auth.ts), on AWS they are SES's (`authFromSes`).
 */

export type { AuthResults, AuthVerdict, Trust };

/** How well a message proves its From: kept on the record as `inbound.sender_auth`. */
export type SenderAuth = 'authenticated' | 'unverified' | 'failed';

/** Authenticated: DMARC passed, or a DKIM signature aligned with the From passed. */
export function isAuthenticated(a: Pick<AuthResults, 'dmarc' | 'dkim_aligned'>): boolean {
  return a.dmarc === 'pass' || a.dkim_aligned;
}

export function senderAuthOf(a: Pick<AuthResults, 'dmarc' | 'dkim_aligned'>): SenderAuth {
  if (isAuthenticated(a)) return 'authenticated';
  return a.dmarc === 'fail' ? 'failed' : 'unverified';
}

/** SES's verdict statuses, as RFC 8601 words: GRAY ("could not be determined") and DISABLED are `none`. */
const SES_WORDS: Readonly<Record<string, AuthVerdict>> = {
  PASS: 'pass',
  FAIL: 'fail',
  GRAY: 'none',
  DISABLED: 'none',
  PROCESSING_FAILED: 'temperror',
};
const sesWord = (status: string | undefined) => (status ? (SES_WORDS[status] ?? 'none') : 'none');

/**
 * The verdicts SES receiving gives a message (its notification's statuses; it reports no ARC and no
 * DKIM alignment): a DKIM pass counts as aligned when SES's own Authentication-Results names a
 * passing signature of the From's domain or a parent of it (`sesDkimPasses`).
 */
export function authFromSes(
  v: { spf?: string; dkim?: string; dmarc?: string },
  fromAddress: string | undefined,
  authenticationResults: string | undefined,
): AuthResults {
  const domain = fromAddress ? domainOf(canonicalAddress(fromAddress)) : '';
  const aligned =
    v.dkim === 'PASS' &&
    !!domain &&
    sesDkimPasses(authenticationResults).some((d) => domain === d || domain.endsWith(`.${d}`));
  return {
    spf: sesWord(v.spf),
    dkim: sesWord(v.dkim),
    dkim_aligned: aligned,
    dmarc: sesWord(v.dmarc),
    arc: null,
    verified_by: 'ses',
  };
}

/**
 * The domains whose DKIM signatures passed, from the Authentication-Results header SES receiving
 * puts on top of every message (authserv-id `amazonses.com`): `dkim=pass header.i=@domain` or
 * `header.d=domain`. Any other header (a sender's own, further down, or another verifier's) gives
 * none. Comments are dropped first, so text inside one is never read as a result.
 */
export function sesDkimPasses(header: string | undefined): string[] {
  if (!header) return [];
  const [authserv, ...results] = header.replace(/\([^()]*\)/g, ' ').split(';');
  if (authserv.trim().split(/\s+/)[0]?.toLowerCase() !== 'amazonses.com') return [];
  return results.flatMap((r) => {
    const pass = /^\s*dkim\s*=\s*pass\b(.*)$/is.exec(r);
    const d = pass && /\bheader\.(?:d\s*=\s*|i\s*=\s*[^@\s;]*@)([a-z0-9.-]+)/i.exec(pass[1]);
    return d ? [d[1].toLowerCase().replace(/\.$/, '')] : [];
  });
}

/** The flags of a received message that are risks to whoever reads it (`trust.risk`). */
export const RISK_FLAGS: readonly string[] = [
  'quarantined',
  'spam',
  'risky_attachment',
  'possible_duplicate',
  'dsn',
  'unparsed',
];

export function trustOf(
  auth: AuthResults,
  seen: { known_sender: boolean; listed: 'allow' | 'block' | null; flags: readonly string[] },
): Trust {
  return {
    authenticated: isAuthenticated(auth),
    spf: auth.spf,
    dkim: auth.dkim,
    dkim_aligned: auth.dkim_aligned,
    dmarc: auth.dmarc,
    arc: auth.arc,
    verified_by: auth.verified_by,
    known_sender: seen.known_sender,
    listed: seen.listed,
    risk: seen.flags.filter((f) => RISK_FLAGS.includes(f)),
  };
}
