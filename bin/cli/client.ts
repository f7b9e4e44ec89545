import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Pmail, PmailError } from '../../packages/client/src/index.ts';

/**
 * The CLI's profile (where the API is and which key to present) and its use of @pmail/client:
 * every mail and control-plane command calls the API through `apiOf` (no table access). Precedence per
 * setting, highest first: flag, environment (`PMAIL_API`, `PMAIL_KEY`, `PMAIL_IDENTITY`), the
 * profile file `.pmail/local.json` that `npm start` writes (`PMAIL_STATE_DIR` moves it).
 */

/** Exit codes, the table of docs/guides/cli.md › Exit codes. Never change a meaning. */
export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  config: 3,
  auth: 4,
  not_found: 5,
  conflict: 6,
  invalid: 7,
  limited: 8,
  unavailable: 9,
  doctor_failed: 12,
  timeout: 13,
  not_sent: 15,
  interrupted: 130,
} as const;

export class CliError extends Error {
  constructor(
    readonly exit: number,
    message: string,
    /** The API's error envelope (`{ error: … }`), when the API answered one. */
    readonly envelope?: { error: ApiErrorBody },
  ) {
    super(message);
  }
}

export interface ApiErrorBody {
  code: string;
  message: string;
  retryable: boolean;
  fix?: string;
  request_id?: string | null;
  details?: Record<string, unknown>;
}

/** What `npm start` writes to `.pmail/local.json` (bin/pmail-cli.ts › start). */
export interface LocalFile {
  api: string;
  /** The event stream (`ws://…/v1/stream`), on the API's host. */
  stream?: string;
  apiKey: string;
  tenantId: string;
  identities: { id: string; name: string; address: string }[];
  platformKey?: string;
  live?: {
    apiKey: string;
    tenantId: string;
    identity: { id: string; name: string; address: string };
    /** The local SES the live tenant's domain sends through (aws-ses-v2-local). */
    ses?: string;
  };
  /** The local MX (SMTP) that takes mail for the deployment's domains. */
  inbound?: { host: string; port: number };
  dynamoEndpoint?: string;
  table?: string;
}

export interface Profile {
  api: string;
  key?: string;
  /** The default identity of mail commands. */
  identity?: string;
  /** The profile file read, if any. */
  local?: LocalFile;
  localFile?: string;
}

export interface ProfileFlags {
  api?: string;
  key?: string;
  identity?: string;
  /** `local` (default: the tenant key), `platform` (the platform key) or `live` (the live tenant). */
  profile?: string;
}

export function readLocalFile(env: NodeJS.ProcessEnv = process.env): { file: string; local?: LocalFile } {
  const file = join(resolve(env.PMAIL_STATE_DIR ?? '.pmail'), 'local.json');
  if (!existsSync(file)) return { file };
  try {
    return { file, local: JSON.parse(readFileSync(file, 'utf8')) as LocalFile };
  } catch {
    throw new CliError(EXIT.config, `${file} is not valid JSON: restart npm start`);
  }
}

export function resolveProfile(flags: ProfileFlags, env: NodeJS.ProcessEnv = process.env): Profile {
  const { file, local } = readLocalFile(env);
  const which = flags.profile ?? env.PMAIL_PROFILE ?? 'local';
  if (!['local', 'platform', 'live'].includes(which))
    throw new CliError(EXIT.config, `unknown profile ${which}: use local, platform or live`);
  const fromFile =
    local === undefined
      ? {}
      : which === 'live'
        ? { key: local.live?.apiKey, identity: local.live?.identity.id }
        : which === 'platform'
          ? { key: local.platformKey }
          : { key: local.apiKey, identity: local.identities?.[0]?.id };
  const api = flags.api ?? env.PMAIL_API ?? local?.api;
  if (!api)
    throw new CliError(
      EXIT.config,
      `no API URL: pass --api, set PMAIL_API, or run npm start (which writes ${file})`,
    );
  const url = api.replace(/\/+$/, '').replace(/\/v1$/, '');
  if (!/^https:\/\//.test(url) && !/^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(url))
    throw new CliError(EXIT.config, `the API URL must be https:// (or http:// on localhost): ${url}`);
  const key = flags.key ?? env.PMAIL_KEY ?? fromFile.key;
  const identity = resolveIdentity(flags.identity ?? env.PMAIL_IDENTITY, local) ?? fromFile.identity;
  return { api: url, key, identity, local, localFile: file };
}

/** An identity given as an id, or as a name or address of the profile file's identities. */
function resolveIdentity(given: string | undefined, local: LocalFile | undefined): string | undefined {
  if (given === undefined || given.startsWith('idn_')) return given;
  const all = [...(local?.identities ?? []), ...(local?.live ? [local.live.identity] : [])];
  const hit = all.find((i) => i.name === given || i.address === given);
  if (!hit) throw new CliError(EXIT.usage, `unknown identity ${given}: pass its id (idn_…)`);
  return hit.id;
}

export interface ApiOptions {
  /** Told before each resend: which one, why, and whether it carries the same Idempotency-Key. */
  onRetry?: (line: string) => void;
}

const USER_AGENT = 'pmail-cli/0.1.0';
/** The CLI's first back-off (the client doubles it per resend, with jitter). */
const RETRY_BASE_MS = 500;

/**
 * The API through @pmail/client for this profile. The client resends what a resend cannot repeat
 * (packages/client/src/retry.ts) with the same Idempotency-Key; `onRetry` hears each resend and why.
 * A network error leaves with the API's URL on it (`pmailApi`), for the message that says so.
 */
export function apiOf(profile: Profile, opts: ApiOptions = {}): Pmail {
  if (!profile.key)
    throw new CliError(
      EXIT.config,
      'no API key: pass --key, set PMAIL_KEY, or run npm start (.pmail/local.json)',
    );
  let last = '';
  let keyed = false;
  let resends = 0;
  return new Pmail({
    apiKey: profile.key,
    baseUrl: profile.api,
    fetch: async (request) => {
      request.headers.set('user-agent', USER_AGENT);
      keyed = request.headers.has('idempotency-key');
      try {
        const res = await fetch(request, { signal: AbortSignal.timeout(30_000) });
        last = `${res.status}`;
        return res;
      } catch (e) {
        last = `network error (${causeOf(e)})`;
        throw Object.assign(e as Error, { pmailApi: profile.api });
      }
    },
    retry: {
      baseDelayMs: RETRY_BASE_MS,
      sleep: async (ms) => {
        opts.onRetry?.(`retry ${++resends}${keyed ? ' with the same key' : ''} after ${last}`);
        await sleep(ms);
      },
    },
  });
}

/** A PmailError as the API's error envelope (`--json` prints it as the API answered it). */
export function envelopeOf(e: PmailError): { error: ApiErrorBody } {
  return {
    error: {
      code: e.code,
      message: e.message,
      retryable: e.retryable,
      fix: e.fix,
      request_id: e.requestId ?? null,
      details: e.details,
    },
  };
}

/** The CliError of a failed API call: the envelope and exit code of an answer, or "unreachable". */
export function cliErrorOf(e: unknown, api: string): CliError | undefined {
  if (e instanceof CliError) return e;
  if (e instanceof PmailError) {
    // The client's stand-in for an answer without pmail's envelope (a proxy, a wrong URL).
    const foreign = e.message === `HTTP ${e.status} without an error body`;
    return new CliError(exitOfStatus(e.status, !foreign), e.message, foreign ? undefined : envelopeOf(e));
  }
  if (e instanceof TypeError || (e as Error)?.name === 'TimeoutError')
    return new CliError(EXIT.unavailable, `could not reach ${api}: ${causeOf(e)}. ${whatToCheck(api)}`);
  return undefined;
}

/** What to do about an API that does not answer: start the local stack, or let doctor look. */
function whatToCheck(api: string): string {
  const local = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(api);
  return local
    ? 'Is the local stack running? Start it with `npm start`; `npx pmail doctor` checks it.'
    : '`npx pmail doctor` checks the API, your profile and the connection.';
}

/** fetch's TypeError says only "fetch failed"; the reason (ECONNREFUSED…) is its cause. */
function causeOf(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (e as Error).message;
}

/** The exit code of an API error status (docs/guides/cli.md › Exit codes). */
export function exitOfStatus(status: number, hasEnvelope: boolean): number {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return hasEnvelope ? EXIT.not_found : EXIT.unavailable;
  if (status === 409 || status === 410 || status === 423) return EXIT.conflict;
  if (status === 400 || status === 413 || status === 422) return EXIT.invalid;
  if (status === 402 || status === 429) return EXIT.limited;
  if (status >= 500) return EXIT.unavailable;
  return EXIT.internal;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
