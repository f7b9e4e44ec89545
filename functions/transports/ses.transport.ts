import { SESv2Client, SendEmailCommand, type SendEmailCommandInput } from '@aws-sdk/client-sesv2';
import type { SesDomainSettings } from '../core/model.ts';
import { domainOf } from '../core/recipients.ts';
import { classifySesAnswer, type SesAnswer } from '../core/ses-outcome.ts';
import type { TransportResult } from '../core/transport-result.ts';
import type { Logger } from '../log.ts';
import type { Transport, TransportRequest } from './transport.ts';

/**
 * The Amazon SES transport. One
 * `SendEmail` call per claim with `Content.Raw` = the stored .eml (no Bcc header: the Bcc recipients
 * travel only in `Destination.BccAddresses`, the envelope), the domain's configuration set (whose
 * event destination feeds the delivery-events queue) and `EmailTags` naming tenant, identity and
 * message. API shape: SES API v2 reference, SendEmail (POST /v2/email/outbound-emails) —
 * https://docs.aws.amazon.com/goto/WebAPI/sesv2-2019-09-27/SendEmail; message tags and
 * configuration sets: https://docs.aws.amazon.com/ses/latest/dg/event-publishing-send-email.html.
 *
 * No hidden retries: SendEmail has no idempotency token, so the
 * client makes exactly one attempt (`maxAttempts: 1`) with explicit connect and request timeouts,
 * and the request's abort signal ends it at the task's deadline.
 */

/** The SES client of one domain's settings: only `send` is used. */
export interface SesClient {
  send(command: SendEmailCommand, options?: { abortSignal?: AbortSignal }): Promise<{ MessageId?: string }>;
}

export interface SesPorts {
  client(settings: SesDomainSettings | undefined): SesClient;
  /** The configuration set of domains that name none (the stack's; PMAIL_SES_CONFIGURATION_SET). */
  defaultConfigurationSet?: string;
  log: Logger;
}

export interface SesClientSettings {
  /** Default region when a domain names none (the Lambda's own). */
  region?: string;
  /** Milliseconds to open the connection. Default 5,000. */
  connectionTimeoutMs?: number;
  /** Milliseconds for the answer once the request is written. Default 30,000. */
  requestTimeoutMs?: number;
  /** Static credentials (the local SES endpoint accepts any); default: the Lambda's role. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export const SES_CLIENT_DEFAULTS = { connectionTimeoutMs: 5_000, requestTimeoutMs: 30_000 } as const;

/** One client per region and endpoint, each with retries off and explicit timeouts. */
export function sesClients(
  settings: SesClientSettings = {},
): (domain: SesDomainSettings | undefined) => SESv2Client {
  const clients = new Map<string, SESv2Client>();
  return (domain) => {
    const region = domain?.region ?? settings.region;
    const key = `${region ?? ''}|${domain?.endpoint ?? ''}`;
    let client = clients.get(key);
    if (!client) {
      client = new SESv2Client({
        region,
        endpoint: domain?.endpoint,
        maxAttempts: 1,
        requestHandler: {
          connectionTimeout: settings.connectionTimeoutMs ?? SES_CLIENT_DEFAULTS.connectionTimeoutMs,
          requestTimeout: settings.requestTimeoutMs ?? SES_CLIENT_DEFAULTS.requestTimeoutMs,
        },
        ...(settings.credentials ? { credentials: settings.credentials } : {}),
      });
      clients.set(key, client);
    }
    return client;
  };
}

/** SES message-tag values allow letters, digits, `_` and `-` only. */
const tagValue = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 256);

/** The SendEmail input of one request (exported for the tests that read it back). */
export function sendEmailInput(
  req: TransportRequest,
  raw: Uint8Array,
  defaultConfigurationSet?: string,
): SendEmailCommandInput {
  const of = (field: 'to' | 'cc' | 'bcc') =>
    req.recipients.filter((r) => r.field === field).map((r) => r.address);
  const configurationSet = req.domain.ses?.configuration_set ?? defaultConfigurationSet;
  return {
    FromEmailAddress: req.envelope_from,
    Destination: { ToAddresses: of('to'), CcAddresses: of('cc'), BccAddresses: of('bcc') },
    Content: { Raw: { Data: raw } },
    ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
    EmailTags: [
      { Name: 'pmail_tenant', Value: tagValue(req.tenant_id) },
      { Name: 'pmail_identity', Value: tagValue(req.identity_id) },
      { Name: 'pmail_message', Value: tagValue(req.message_id) },
    ],
  };
}

/** What the SDK's answer or error was, without interpretation (core/ses-outcome.ts classifies it). */
export function observeSesError(err: unknown): SesAnswer {
  const e = err as {
    name?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
    $response?: unknown;
  };
  const status = e?.$metadata?.httpStatusCode;
  if (typeof status === 'number' && status > 0) {
    return { type: 'error', name: String(e.name ?? ''), status, message: e.message };
  }
  // The SDK's HTTP handler names socket errors `TimeoutError` too (a reset is `read ECONNRESET`):
  // the code tells a lost connection from a timeout.
  const name = String(e?.name ?? 'Error');
  const code = String((err as { code?: string })?.code ?? '');
  const lost = /^(ECONNRESET|EPIPE|ECONNREFUSED|ECONNABORTED|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN)$/.test(code);
  const timeout =
    !lost &&
    (name === 'TimeoutError' ||
      name === 'AbortError' ||
      code === 'ETIMEDOUT' ||
      /timed? ?out/i.test(String(e?.message)));
  return {
    type: 'no_answer',
    timeout,
    detail: `${name}${code ? ` ${code}` : ''}: ${String(e?.message ?? '').slice(0, 200)}`,
  };
}

export function sesTransport(ports: SesPorts): Transport {
  return {
    provider: 'ses',
    async send(req: TransportRequest): Promise<TransportResult> {
      const raw = await req.mime.load();
      const input = sendEmailInput(req, raw, ports.defaultConfigurationSet);
      let answer: SesAnswer;
      try {
        const out = await ports.client(req.domain.ses).send(new SendEmailCommand(input), {
          abortSignal: req.signal,
        });
        answer = out.MessageId
          ? { type: 'ok', message_id: out.MessageId }
          : { type: 'no_answer', timeout: false, detail: 'SES answered without a MessageId' };
      } catch (err) {
        answer = observeSesError(err);
      }
      const { result, follow_up } = classifySesAnswer(answer, domainOf(req.from));
      if (follow_up) {
        ports.log.warn('ses answer needs attention', {
          message_id: req.message_id,
          follow_up,
          code: result.type === 'accepted' ? undefined : 'code' in result ? result.code : undefined,
        });
      }
      return result;
    },
  };
}
