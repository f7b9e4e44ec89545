import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The CLI's HTTP client of pmail's API and its profile: where the API is and which key to present.
 * Every mail and control-plane command goes through `request` (no table access). Precedence per
 * setting, highest first: flag, environment (`PMAIL_API`, `PMAIL_KEY`, `PMAIL_IDENTITY`), the
 * profile file `.pmail/local.json` that `npm start` writes (`PMAIL_STATE_DIR` moves it).
 */

/** Exit codes (public design › CLI › Exit codes, plus 15 for `--wait` ending unsent). Never change a meaning. */
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
  apiKey: string;
  tenantId: string;
  identities: { id: string; name: string; address: string }[];
  platformKey?: string;
  live?: { apiKey: string; tenantId: string; identity: { id: string; name: string; address: string } };
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

export function readLocalFile(): { file: string; local?: LocalFile } {
  const file = join(resolve(process.env.PMAIL_STATE_DIR ?? '.pmail'), 'local.json');
  if (!existsSync(file)) return { file };
  try {
    return { file, local: JSON.parse(readFileSync(file, 'utf8')) as LocalFile };
  } catch {
    throw new CliError(EXIT.config, `${file} is not valid JSON: restart npm start`);
  }
}

export function resolveProfile(flags: ProfileFlags, env: NodeJS.ProcessEnv = process.env): Profile {
  const { file, local } = readLocalFile();
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

export interface ApiAnswer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  idempotencyKey?: string;
  /** Retries of a network error, 5xx, 429 or request_in_progress, with the same key (default 3). */
  retries?: number;
  /** Called before each retry (the CLI prints it in human mode). */
  onRetry?: (why: string, attempt: number) => void;
}

const RETRY_BACKOFF_MS = [500, 1000, 2000];
const USER_AGENT = 'pmail-cli/0.1.0';

/** One API call: the JSON answer on 2xx, else a CliError carrying the envelope and the exit code. */
export async function request<T = any>(
  profile: Profile,
  method: string,
  path: string,
  opts: RequestOptions = {},
): Promise<ApiAnswer<T>> {
  if (!profile.key)
    throw new CliError(
      EXIT.config,
      'no API key: pass --key, set PMAIL_KEY, or run npm start (.pmail/local.json)',
    );
  const url = new URL(profile.api + path);
  for (const [k, v] of Object.entries(opts.query ?? {}))
    if (v !== undefined) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = {
    authorization: `Bearer ${profile.key}`,
    'user-agent': USER_AGENT,
    accept: 'application/json',
  };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.idempotencyKey !== undefined) headers['idempotency-key'] = opts.idempotencyKey;
  const retries = opts.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      if (attempt < retries) {
        opts.onRetry?.(`network error (${(err as Error).message})`, attempt + 1);
        await sleep(RETRY_BACKOFF_MS[attempt] ?? 2000);
        continue;
      }
      throw new CliError(EXIT.unavailable, `could not reach ${profile.api}: ${(err as Error).message}`);
    }
    const text = await res.text();
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (res.ok) return { status: res.status, headers: res.headers, body: body as T };
    const envelope =
      body && typeof body.error?.code === 'string' ? (body as { error: ApiErrorBody }) : undefined;
    const retryable =
      res.status >= 500 || res.status === 429 || envelope?.error.code === 'request_in_progress';
    const wait = Number(res.headers.get('retry-after') ?? 0) * 1000;
    if (retryable && attempt < retries && wait <= 60_000) {
      opts.onRetry?.(`${res.status} ${envelope?.error.code ?? ''}`.trim(), attempt + 1);
      await sleep(Math.max(wait, RETRY_BACKOFF_MS[attempt] ?? 2000));
      continue;
    }
    throw new CliError(
      exitOfStatus(res.status, envelope !== undefined),
      envelope?.error.message ?? `HTTP ${res.status}`,
      envelope,
    );
  }
}

/** The exit code of an API error status (public design › CLI › Exit codes). */
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
