import { authenticate } from 'mailauth';
import type { AuthResults } from '../core/trust.ts';

/**
 * Who sent a message the local MX accepted (docs/guides/receiving.md › Who sent it): SPF for the
 * connecting address and MAIL FROM, DKIM, DMARC and ARC, computed by mailauth with the MX's own
 * resolver (a zone file: functions/local/dns-zone.ts), never the network. Returns the verdicts the
 * ingest reads (core/trust.ts › AuthResults) and the `Received-SPF` and `Authentication-Results`
 * header lines the MX puts on top of the stored copy, as SES's receiving does its own.
 */
export type MxResolver = (name: string, rrtype?: string) => Promise<unknown[]>;

export async function authenticateAtMx(
  raw: Buffer,
  session: { ip: string; helo: string; sender: string; mta: string; resolver: MxResolver },
): Promise<{ results: AuthResults; headers: string }> {
  const r = await authenticate(raw, {
    ip: session.ip,
    helo: session.helo,
    sender: session.sender,
    mta: session.mta,
    resolver: session.resolver as never,
    disableBimi: true,
  });
  const signatures = r.dkim?.results ?? [];
  const passed = signatures.filter((s) => s.status?.result === 'pass');
  const results: AuthResults = {
    spf: verdict(r.spf),
    dkim: passed.length ? 'pass' : (signatures[0]?.status?.result ?? 'none'),
    dkim_aligned: passed.some((s) => Boolean(s.status?.aligned)),
    dmarc: verdict(r.dmarc),
    arc: verdict(r.arc),
    verified_by: 'mx',
  };
  return { results, headers: r.headers ?? '' };
}

/** mailauth answers `false` for a check it did not run. */
const verdict = (v: false | { status?: { result?: string } } | undefined): string =>
  (v ? v.status?.result : undefined) || 'none';
