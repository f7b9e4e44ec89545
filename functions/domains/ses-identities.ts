import type { IdentityStatus } from '../core/domains.ts';

/**
 * The SES control plane of sending domains: one domain = one SES domain identity
 * API shapes: SES API v2 reference, CreateEmailIdentity, GetEmailIdentity,
 * DeleteEmailIdentity, PutEmailIdentityMailFromAttributes —
 * https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_CreateEmailIdentity.html (and the
 * sibling pages). The SESv2 adapter is functions/adapters/ses-identities.ts; no local engine
 * implements these calls: the tests mock them with aws-sdk-client-mock, and `npm start` uses
 * `autoVerifyingIdentities` below.
 */
export interface SesIdentities {
  /** Easy DKIM identity in the configuration set; the DKIM tokens and the zone they point into. */
  create(input: {
    domain: string;
    region?: string;
    configurationSet?: string;
    mailFrom?: string;
  }): Promise<{ tokens: string[]; signingHostedZone: string; region: string }>;
  get(domain: string, region?: string): Promise<IdentityStatus>;
  /** Absent identities are fine. */
  delete(domain: string, region?: string): Promise<void>;
}

/**
 * `npm start`'s stand-in (aws-ses-v2-local implements no identities): every domain is created with
 * three made-up DKIM tokens and reads back verified, so a local live tenant can send at once.
 */
export function autoVerifyingIdentities(): SesIdentities {
  const deleted = new Set<string>();
  return {
    async create({ domain, region }) {
      deleted.delete(domain);
      const base = Buffer.from(domain).toString('hex').slice(0, 20).padEnd(20, '0');
      return {
        tokens: [1, 2, 3].map((n) => `local${n}${base}`),
        signingHostedZone: 'dkim.local.invalid',
        region: region ?? 'us-east-1',
      };
    },
    async get(domain) {
      return deleted.has(domain) ? { found: false } : { found: true, verified: true, dkim: 'SUCCESS' };
    },
    async delete(domain) {
      deleted.add(domain);
    },
  };
}
