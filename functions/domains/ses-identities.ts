import {
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  PutEmailIdentityMailFromAttributesCommand,
  SESv2Client,
} from '@aws-sdk/client-sesv2';
import type { IdentityStatus } from '../core/domains.ts';

/**
 * The SES control plane of sending domains: one domain = one SES domain identity
 * API shapes: SES API v2 reference, CreateEmailIdentity, GetEmailIdentity,
 * DeleteEmailIdentity, PutEmailIdentityMailFromAttributes —
 * https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_CreateEmailIdentity.html (and the
 * sibling pages). No local engine implements these calls: the tests mock them with
 * aws-sdk-client-mock, and `npm start` uses `autoVerifyingIdentities` below.
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

export interface SesIdentitiesSettings {
  /** The deployment's Region (the Lambda's own); a domain may name another. */
  region: string;
  /** Default `dkim.amazonses.com`, when SES answers no SigningHostedZone. */
  defaultSigningHostedZone?: string;
}

/** The SESv2 implementation (retries are fine here: these calls are idempotent or read-only). */
export function sesIdentities(
  settings: SesIdentitiesSettings,
  make = (region: string) => new SESv2Client({ region }),
): SesIdentities {
  const clients = new Map<string, SESv2Client>();
  const client = (region = settings.region) => {
    let c = clients.get(region);
    if (!c) {
      c = make(region);
      clients.set(region, c);
    }
    return c;
  };
  return {
    async create({ domain, region, configurationSet, mailFrom }) {
      const r = region ?? settings.region;
      const out = await client(r).send(
        new CreateEmailIdentityCommand({
          EmailIdentity: domain,
          ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
        }),
      );
      if (mailFrom) {
        // BehaviorOnMxFailure USE_DEFAULT_VALUE: SES falls back to its own MAIL FROM (degraded, not failing).
        await client(r).send(
          new PutEmailIdentityMailFromAttributesCommand({
            EmailIdentity: domain,
            MailFromDomain: mailFrom,
            BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
          }),
        );
      }
      return {
        tokens: out.DkimAttributes?.Tokens ?? [],
        signingHostedZone:
          out.DkimAttributes?.SigningHostedZone ?? settings.defaultSigningHostedZone ?? 'dkim.amazonses.com',
        region: r,
      };
    },
    async get(domain, region) {
      try {
        const out = await client(region).send(new GetEmailIdentityCommand({ EmailIdentity: domain }));
        return {
          found: true,
          verified: out.VerifiedForSendingStatus === true,
          dkim: out.DkimAttributes?.Status ?? 'NOT_STARTED',
          ...(out.MailFromAttributes?.MailFromDomainStatus
            ? { mail_from: out.MailFromAttributes.MailFromDomainStatus }
            : {}),
        };
      } catch (err) {
        if ((err as { name?: string }).name === 'NotFoundException') return { found: false };
        throw err;
      }
    },
    async delete(domain, region) {
      try {
        await client(region).send(new DeleteEmailIdentityCommand({ EmailIdentity: domain }));
      } catch (err) {
        if ((err as { name?: string }).name !== 'NotFoundException') throw err;
      }
    },
  };
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
