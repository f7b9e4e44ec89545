import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import * as z from 'zod';
import { relayCredentialsUnavailable, relayRefused, relaySecretNotStored } from '../../core/errors.ts';
import type { DomainRecord, SmtpDomainSettings } from '../../core/model.ts';
import { RELAY_HOST_PATTERN, relayPortAllowed, relayTargetAllowed } from '../../core/relay-address.ts';
import type { Deps } from '../../deps.ts';
import { smtpSecretName, writeSmtpSecret } from '../../store/relay-secrets.store.ts';
import type { DomainsApiPorts } from './operation.ts';

/** The relay settings the create and the change of a domain share: their schema, their checks, the secret. */

/**
 * The `smtp` settings of a domain (docs/guides/domains.md). `password` / `access_token` are
 * write-only: stored in the domain's secret (functions/store/relay-secrets.store.ts), never kept on
 * the domain, never answered, never logged.
 */
export const smtpSettingsSchema = z.strictObject({
  host: z
    .string()
    .min(1)
    .max(253)
    .transform((s) => s.toLowerCase())
    .pipe(z.string().regex(RELAY_HOST_PATTERN)),
  /** 25, 465, 587 or 2525: checked with the SSRF rules (checkRelayHost), lifted only locally. */
  port: z.number().int().min(1).max(65535),
  tls: z.enum(['implicit', 'starttls']).optional(),
  username: z.string().min(1).max(256).optional(),
  auth: z.enum(['password', 'xoauth2']).optional(),
  password: z.string().min(1).max(1024).optional(),
  access_token: z.string().min(1).max(4096).optional(),
});
export type SmtpSettingsBody = z.output<typeof smtpSettingsSchema>;

/** The secret fields fit the auth mode; `requireSecret`: a username needs its secret (create). */
export function checkSmtpAuth(smtp: SmtpSettingsBody, ctx: z.RefinementCtx, requireSecret: boolean): void {
  const xoauth2 = smtp.auth === 'xoauth2';
  if (xoauth2 && smtp.password !== undefined)
    ctx.addIssue({ code: 'custom', path: ['smtp', 'password'], message: 'auth xoauth2 takes access_token' });
  if (!xoauth2 && smtp.access_token !== undefined)
    ctx.addIssue({ code: 'custom', path: ['smtp', 'access_token'], message: 'needs auth xoauth2' });
  const secret = xoauth2 ? smtp.access_token : smtp.password;
  if (secret !== undefined && smtp.username === undefined)
    ctx.addIssue({ code: 'custom', path: ['smtp', 'username'], message: 'required with credentials' });
  if (requireSecret && smtp.username !== undefined && secret === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['smtp', xoauth2 ? 'access_token' : 'password'],
      message: 'required with a username',
    });
}

const hasSecret = (smtp: SmtpSettingsBody) =>
  (smtp.auth === 'xoauth2' ? smtp.access_token : smtp.password) !== undefined;

/**
 * The settings kept on the domain: everything but the secret, which is only referenced: the
 * domain's secret when the settings carry one, else `keptRef` (the secret stored before, if any).
 */
export function relaySettings(
  ports: DomainsApiPorts,
  domain: string,
  smtp: SmtpSettingsBody,
  keptRef?: string,
): SmtpDomainSettings {
  const secretRef = hasSecret(smtp) ? secretName(ports, domain) : keptRef;
  return {
    host: smtp.host,
    port: smtp.port,
    ...(smtp.tls ? { tls: smtp.tls } : {}),
    ...(smtp.username ? { username: smtp.username } : {}),
    ...(smtp.auth ? { auth: smtp.auth } : {}),
    ...(secretRef ? { secret_ref: secretRef } : {}),
  };
}

function secretName(ports: DomainsApiPorts, domain: string): string {
  if (!ports.secretPrefix || !ports.secrets) throw relayCredentialsUnavailable();
  return smtpSecretName(ports.secretPrefix, domain);
}

/** Write the domain's relay secret, if the settings carry one (write-only; the domain keeps `secret_ref`). */
export async function storeSecret(
  deps: Pick<Deps, 'log'>,
  ports: DomainsApiPorts,
  d: DomainRecord,
  smtp: SmtpSettingsBody,
): Promise<void> {
  if (!hasSecret(smtp)) return;
  if (!ports.secrets || !ports.secretPrefix) throw relayCredentialsUnavailable();
  const secret = smtp.auth === 'xoauth2' ? { access_token: smtp.access_token } : { password: smtp.password };
  try {
    await writeSmtpSecret(ports.secrets, ports.secretPrefix, d.domain, secret);
  } catch (err) {
    deps.log.warn('relay secret not stored', { domain_id: d.id, error: String((err as Error)?.name) });
    throw relaySecretNotStored();
  }
}

const defaultResolve = async (host: string): Promise<string[]> =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The SSRF rules at create and change time (core/relay-address.ts), so a refused relay fails early
 * with 400 and a path; the adapter checks again at every connection (DNS can change). A host that
 * does not resolve (ENOTFOUND) is refused too; a resolver failure is left to the probe.
 */
export async function checkRelayHost(ports: DomainsApiPorts, smtp: SmtpSettingsBody): Promise<void> {
  if (ports.allowLocalRelays) return;
  const refuse = (message: string, path = 'smtp.host') => relayRefused(path, message);
  const port = relayPortAllowed(smtp.port);
  if (!port.ok) throw refuse(port.detail, 'smtp.port');
  let addresses: string[];
  if (isIP(smtp.host)) addresses = [smtp.host];
  else {
    try {
      addresses = await (ports.resolve ?? defaultResolve)(smtp.host);
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code === 'ENOTFOUND')
        throw refuse('the relay host does not resolve');
      return;
    }
  }
  const check = relayTargetAllowed(smtp.port, addresses);
  if (!check.ok) throw refuse(check.detail);
}
