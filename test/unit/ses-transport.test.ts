import {
  AccountSuspendedException,
  BadRequestException,
  InternalServiceErrorException,
  LimitExceededException,
  MailFromDomainNotVerifiedException,
  MessageRejected,
  NotFoundException,
  SESv2Client,
  SendEmailCommand,
  SendingPausedException,
  TooManyRequestsException,
} from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../functions/log.ts';
import { sesClients, sesTransport } from '../../functions/transports/ses.transport.ts';
import type { TransportRequest } from '../../functions/transports/transport.ts';

/**
 * The SES adapter against every classified error answer of SendEmail, as the SDK raises it
 * (aws-sdk-client-mock: the local SES answers none of them). One SendEmail per request, always.
 */
const ses = mockClient(SESv2Client);
afterEach(() => ses.reset());

const meta = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });
const MIME = 'From: Agent <agent@acme.example>\r\nTo: jo@example.net\r\nSubject: Hi\r\n\r\nHello\r\n';

const request = (): TransportRequest => ({
  tenant_id: 'ten_01jbz',
  identity_id: 'idn_01jbz',
  message_id: 'msg_01jbz',
  claim_token: 'tok',
  attempt: 1,
  mime: { key: 'k', size: MIME.length, load: async () => new TextEncoder().encode(MIME) },
  rfc_message_id: '01jbz@acme.example',
  subject: 'Hi',
  kind: 'transactional',
  from: 'agent@acme.example',
  envelope_from: 'agent@acme.example',
  recipients: [
    { address: 'jo@example.net', field: 'to' },
    { address: 'secret@example.net', field: 'bcc' },
  ],
  domain: { domain: 'acme.example', tenant_id: 'ten_01jbz', transport: 'ses', ses: { region: 'eu-west-1' } },
  deadline: Date.now() + 50_000,
  signal: new AbortController().signal,
});

const transport = () =>
  sesTransport({
    client: sesClients({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }),
    defaultConfigurationSet: 'pmail-stack',
    log: silentLogger,
  });

const cases: [string, Error, object][] = [
  [
    'MessageRejected',
    new MessageRejected({ message: 'Illegal address', ...meta(400) }),
    { type: 'rejected', reason: 'provider_validation', code: 'MessageRejected' },
  ],
  [
    'BadRequestException',
    new BadRequestException({ message: 'Message too long', ...meta(400) }),
    { type: 'rejected', reason: 'provider_validation', code: 'BadRequestException' },
  ],
  [
    'MailFromDomainNotVerifiedException',
    new MailFromDomainNotVerifiedException({ message: 'not verified', ...meta(400) }),
    { type: 'rejected', reason: 'sender_domain_unavailable' },
  ],
  [
    'NotFoundException',
    new NotFoundException({ message: 'no such identity', ...meta(404) }),
    { type: 'rejected', reason: 'sender_domain_unavailable' },
  ],
  [
    'an unverified sender identity (MessageRejected)',
    new MessageRejected({
      message:
        'Email address is not verified. The following identities failed the check in region EU-WEST-1: agent@acme.example',
      ...meta(400),
    }),
    { type: 'rejected', reason: 'sender_domain_unavailable' },
  ],
  [
    'TooManyRequestsException',
    new TooManyRequestsException({ message: 'Maximum sending rate exceeded.', ...meta(429) }),
    { type: 'retry_later', class: 'RateLimit' },
  ],
  [
    'LimitExceededException',
    new LimitExceededException({ message: 'Daily message quota exceeded.', ...meta(400) }),
    { type: 'retry_later', class: 'Quota' },
  ],
  [
    'AccountSuspendedException',
    new AccountSuspendedException({ message: 'suspended', ...meta(400) }),
    { type: 'retry_later', class: 'Paused' },
  ],
  [
    'SendingPausedException',
    new SendingPausedException({ message: 'paused', ...meta(400) }),
    { type: 'retry_later', class: 'Paused' },
  ],
  [
    'InternalServiceErrorException (5xx)',
    new InternalServiceErrorException({ message: 'oops', ...meta(500) }),
    { type: 'unknown', reason: 'transport_connection_lost' },
  ],
  [
    'a socket timeout',
    Object.assign(new Error('socket timed out'), { name: 'TimeoutError', code: 'ETIMEDOUT' }),
    { type: 'unknown', reason: 'transport_timeout' },
  ],
];

describe('the SES adapter classifies each SendEmail error answer', () => {
  it.each(cases)('%s', async (_, error, expected) => {
    ses.on(SendEmailCommand).rejects(error);
    const result = await transport().send(request());
    expect(result).toMatchObject({ ...expected, provider: 'ses' });
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(1);
  });

  it('accepts a MessageId, sending the raw .eml with Bcc only in the envelope', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: '0102-abc' });
    const result = await transport().send(request());
    expect(result).toEqual({
      type: 'accepted',
      provider: 'ses',
      provider_message_id: '0102-abc',
      refused: [],
      deferred: [],
    });
    const calls = ses.commandCalls(SendEmailCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0].args[0].input;
    expect(input.Destination).toEqual({
      ToAddresses: ['jo@example.net'],
      CcAddresses: [],
      BccAddresses: ['secret@example.net'],
    });
    expect(new TextDecoder().decode(input.Content?.Raw?.Data)).toBe(MIME);
    expect(input.ConfigurationSetName).toBe('pmail-stack');
    expect(input.FromEmailAddress).toBe('agent@acme.example');
  });

  it('makes the client with one attempt and explicit timeouts', async () => {
    const client = sesClients({ region: 'us-east-1', connectionTimeoutMs: 1234, requestTimeoutMs: 5678 })({
      region: 'eu-west-1',
    });
    expect(await client.config.maxAttempts()).toBe(1);
    expect(await client.config.region()).toBe('eu-west-1');
    const handler = client.config.requestHandler as unknown as {
      configProvider: Promise<Record<string, number>>;
    };
    const cfg = await handler.configProvider;
    expect(cfg.connectionTimeout).toBe(1234);
    expect(cfg.requestTimeout).toBe(5678);
  });
});
