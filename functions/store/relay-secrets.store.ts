import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { SmtpSecret, TransportDomain } from '../core/model.ts';

/**
 * The relay credentials of sending domains: one Secrets
 * Manager secret per domain, named `{prefix}/smtp/{domain}` (prefix = the stack name), holding
 * `{ "password": "…" }` (AUTH PLAIN/LOGIN) or `{ "access_token": "…" }` (XOAUTH2). The domains API
 * writes it (write-only: it is never returned) and records its name as the domain's
 * `smtp.secret_ref`; only the SMTP transport Lambda may read it (lib/send-machine.ts grants
 * `GetSecretValue` on `{prefix}/smtp/*` to that function alone). Locally a folder stands in.
 */
export interface SecretStore {
  read(name: string): Promise<string | undefined>;
  /** Create or replace the value. */
  write(name: string, value: string): Promise<void>;
  /** Delete (absent is fine). */
  remove(name: string): Promise<void>;
}

export const smtpSecretName = (prefix: string, domain: string): string =>
  `${prefix}/smtp/${domain.toLowerCase()}`;

/** The domains API's write: stores the credentials and answers the `secret_ref` to record. */
export async function writeSmtpSecret(
  store: SecretStore,
  prefix: string,
  domain: string,
  secret: SmtpSecret,
): Promise<string> {
  const name = smtpSecretName(prefix, domain);
  await store.write(name, JSON.stringify(secret));
  return name;
}

/**
 * The SMTP adapter's credentials port: the domain's secret, only under this deployment's prefix
 * (a `secret_ref` naming anything else is not read, whatever IAM would allow).
 */
export function smtpCredentials(
  store: SecretStore,
  prefix: string,
): (domain: TransportDomain) => Promise<SmtpSecret | undefined> {
  return async (domain) => {
    const ref = domain.smtp?.secret_ref;
    if (!ref?.startsWith(`${prefix}/smtp/`)) return undefined;
    const raw = await store.read(ref);
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as SmtpSecret;
    return { password: parsed.password, access_token: parsed.access_token };
  };
}

/** Secrets Manager, no retries hidden in the client beyond the SDK's standard three for reads. */
export function secretsManagerStore(client = new SecretsManagerClient({})): SecretStore {
  return {
    async read(name) {
      try {
        const out = await client.send(new GetSecretValueCommand({ SecretId: name }));
        return out.SecretString;
      } catch (err) {
        if (err instanceof ResourceNotFoundException) return undefined;
        throw err;
      }
    },
    async write(name, value) {
      try {
        await client.send(new PutSecretValueCommand({ SecretId: name, SecretString: value }));
      } catch (err) {
        if (!(err instanceof ResourceNotFoundException)) throw err;
        await client.send(
          new CreateSecretCommand({
            Name: name,
            SecretString: value,
            Description: 'pmail: SMTP relay credentials of one sending domain',
          }),
        );
      }
    },
    async remove(name) {
      try {
        await client.send(new DeleteSecretCommand({ SecretId: name, RecoveryWindowInDays: 7 }));
      } catch (err) {
        if (!(err instanceof ResourceNotFoundException)) throw err;
      }
    },
  };
}

/** The local runtime's stand-in: one file per secret (mode 0600) under `dir`. */
export function folderSecretStore(dir: string): SecretStore {
  const file = (name: string) => join(dir, `${encodeURIComponent(name)}.json`);
  return {
    async read(name) {
      try {
        return await readFile(file(name), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async write(name, value) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFile(file(name), value, { mode: 0o600 });
    },
    async remove(name) {
      await rm(file(name), { force: true });
    },
  };
}
