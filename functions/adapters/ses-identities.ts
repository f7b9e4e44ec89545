import {
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  PutEmailIdentityMailFromAttributesCommand,
  SESv2Client,
} from '@aws-sdk/client-sesv2';
import type { SesIdentities } from '../domains/ses-identities.ts';

export interface SesIdentitiesSettings {
  /** The deployment's Region (the Lambda's own); a domain may name another. */
  region: string;
  /** Default `dkim.amazonses.com`, when SES answers no SigningHostedZone. */
  defaultSigningHostedZone?: string;
}

/** One SESv2 client per region, made when first asked for (the deployment's region by default). */
function clientPerRegion(
  defaultRegion: () => string,
  make: (region: string) => SESv2Client,
): (region?: string) => SESv2Client {
  const clients = new Map<string, SESv2Client>();
  return (region = defaultRegion()) => {
    let c = clients.get(region);
    if (!c) {
      c = make(region);
      clients.set(region, c);
    }
    return c;
  };
}

/** The SESv2 implementation (retries are fine here: these calls are idempotent or read-only). */
export function sesIdentities(
  settings: SesIdentitiesSettings,
  make = (region: string) => new SESv2Client({ region }),
): SesIdentities {
  const client = clientPerRegion(() => settings.region, make);
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
