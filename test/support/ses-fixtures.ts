/**
 * SES event records built field for field on AWS's published examples ("Examples of event data that
 * Amazon SES publishes to Amazon SNS" and "Amazon SNS notification examples for Amazon SES",
 * docs.aws.amazon.com/ses/latest/dg/, read 2026-12-02), with RFC 2606 addresses and the message ids,
 * addresses and times of the test put in. `envelope` wraps a record as SNS delivers it to SQS
 * without raw message delivery.
 */
export interface MailFacts {
  messageId: string;
  from: string;
  to: string[];
  subject?: string;
  at: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

function mail(f: MailFacts) {
  const from = `Sender Name <${f.from}>`;
  return {
    timestamp: iso(f.at - 60_000),
    source: from,
    sourceArn: `arn:aws:ses:us-east-1:123456789012:identity/${f.from.split('@')[1]}`,
    sendingAccountId: '123456789012',
    messageId: f.messageId,
    destination: f.to,
    headersTruncated: false,
    headers: [
      { name: 'From', value: from },
      { name: 'To', value: f.to.join(', ') },
      ...(f.subject !== undefined ? [{ name: 'Subject', value: f.subject }] : []),
      { name: 'MIME-Version', value: '1.0' },
      {
        name: 'Content-Type',
        value: 'multipart/alternative; boundary="----=_Part_7307378_1629847660.1516840721503"',
      },
    ],
    commonHeaders: {
      from: [from],
      to: f.to,
      messageId: f.messageId,
      ...(f.subject !== undefined ? { subject: f.subject } : {}),
    },
    tags: {
      'ses:configuration-set': ['pylota-mail'],
      'ses:source-ip': ['192.0.2.0'],
      'ses:from-domain': [f.from.split('@')[1]],
      'ses:caller-identity': ['ses_user'],
    },
  };
}

export const ses = {
  send: (f: MailFacts) => ({ eventType: 'Send', mail: mail(f), send: {} }),
  delivery: (f: MailFacts, recipients = f.to) => ({
    eventType: 'Delivery',
    mail: mail(f),
    delivery: {
      timestamp: iso(f.at),
      processingTimeMillis: 546,
      recipients,
      smtpResponse: '250 2.6.0 Message received',
      reportingMTA: 'mta-1a.example.com',
    },
  }),
  bounce: (
    f: MailFacts,
    recipients = f.to,
    type: 'Permanent' | 'Transient' | 'Undetermined' = 'Permanent',
    subType = 'General',
  ) => ({
    eventType: 'Bounce',
    bounce: {
      bounceType: type,
      bounceSubType: subType,
      bouncedRecipients: recipients.map((emailAddress) => ({
        emailAddress,
        action: 'failed',
        status: type === 'Permanent' ? '5.1.1' : '4.4.7',
        diagnosticCode:
          type === 'Permanent' ? 'smtp; 550 5.1.1 user unknown' : 'smtp; 421 4.4.7 message expired',
      })),
      timestamp: iso(f.at),
      feedbackId: '01000157c44f053b-61b59c11-9236-11e6-8f96-7be8aexample-000000',
      reportingMTA: 'dsn; mta.example.com',
    },
    mail: mail(f),
  }),
  complaint: (f: MailFacts, recipients = f.to) => ({
    eventType: 'Complaint',
    complaint: {
      complainedRecipients: recipients.map((emailAddress) => ({ emailAddress })),
      timestamp: iso(f.at),
      feedbackId: '01000157c44f053b-61b59c11-9236-11e6-8f96-7be8aexample-000000',
      complaintSubType: null,
      userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko)',
      complaintFeedbackType: 'abuse',
      arrivalDate: iso(f.at - 1000),
    },
    mail: mail(f),
  }),
  reject: (f: MailFacts) => ({ eventType: 'Reject', mail: mail(f), reject: { reason: 'Bad content' } }),
  deliveryDelay: (f: MailFacts, recipients = f.to) => ({
    eventType: 'DeliveryDelay',
    mail: mail(f),
    deliveryDelay: {
      timestamp: iso(f.at),
      delayType: 'InternalFailure',
      expirationTime: iso(f.at + 600_000),
      delayedRecipients: recipients.map((emailAddress) => ({
        emailAddress,
        status: '4.4.1',
        diagnosticCode: 'smtp; 421 4.4.1 Unable to connect to remote host',
      })),
    },
  }),
  renderingFailure: (f: MailFacts) => ({
    eventType: 'Rendering Failure',
    mail: mail(f),
    failure: {
      errorMessage: "Attribute 'attributeName' is not present in the rendering data.",
      templateName: 'MyTemplate',
    },
  }),
  open: (f: MailFacts) => ({
    eventType: 'Open',
    mail: mail(f),
    open: { ipAddress: '192.0.2.1', timestamp: iso(f.at), userAgent: 'Mozilla/5.0' },
  }),
  /** Identity feedback notifications name the type `notificationType` (no configuration set). */
  identityBounce: (f: MailFacts) => {
    const { eventType: _t, ...rest } = ses.bounce(f);
    return { notificationType: 'Bounce', ...rest };
  },
};

/** What SES receiving knew of one received message. */
export interface ReceivedFacts {
  messageId: string;
  /** The envelope sender (MAIL FROM). */
  source: string;
  recipients: string[];
  at: number;
  /** Where the receipt rule's S3 action stored the message (its key ends with `messageId`). */
  objectKey: string;
  verdicts?: Partial<Record<'spam' | 'virus' | 'spf' | 'dkim' | 'dmarc', 'PASS' | 'FAIL' | 'GRAY'>>;
}

/**
 * SES receiving's notification of a message its S3 action stored, field for field on AWS's
 * "Notification examples for Amazon SES email receiving" and "Contents of notifications for Amazon
 * SES email receiving" (docs.aws.amazon.com/ses/latest/dg/, read 2026-12-07): the verdicts in
 * `receipt`, `dmarcPolicy` only when DMARC failed, the S3 action's bucket and key. With raw message
 * delivery (lib/inbound.ts) this object is the SQS message's body.
 */
export function sesReceived(f: ReceivedFacts) {
  const v = (k: 'spam' | 'virus' | 'spf' | 'dkim' | 'dmarc') => ({ status: f.verdicts?.[k] ?? 'GRAY' });
  return {
    notificationType: 'Received',
    mail: {
      timestamp: iso(f.at),
      source: f.source,
      messageId: f.messageId,
      destination: f.recipients,
      headersTruncated: false,
      headers: [{ name: 'Return-Path', value: `<${f.source}>` }],
      commonHeaders: { returnPath: f.source, messageId: `<${f.messageId}@example.org>` },
    },
    receipt: {
      timestamp: iso(f.at),
      processingTimeMillis: 222,
      recipients: f.recipients,
      spamVerdict: v('spam'),
      virusVerdict: v('virus'),
      spfVerdict: v('spf'),
      dkimVerdict: v('dkim'),
      dmarcVerdict: v('dmarc'),
      ...(f.verdicts?.dmarc === 'FAIL' ? { dmarcPolicy: 'reject' } : {}),
      action: {
        type: 'S3',
        topicArn: 'arn:aws:sns:us-east-1:123456789012:pmail-inbound',
        bucketName: 'pmail-blobs-123456789012',
        objectKeyPrefix: 'inbound/raw/',
        objectKey: f.objectKey,
      },
    },
  };
}

/**
 * The headers SES receiving puts on top of a message it stores (as AWS's examples of stored
 * messages show them): its Received line, the spam and virus verdicts, Received-SPF and its own
 * Authentication-Results (authserv-id `amazonses.com`).
 */
export function sesTrace(f: { source: string; recipient: string; results: string }): string {
  return [
    `Return-Path: <${f.source}>`,
    `Received: from mail.example.net (mail.example.net [192.0.2.25]) by inbound-smtp.us-east-1.amazonaws.com with SMTP id 3k2bqd0l7v2esc6l; for ${f.recipient}; Mon, 07 Dec 2026 10:00:00 +0000 (UTC)`,
    'X-SES-Spam-Verdict: PASS',
    'X-SES-Virus-Verdict: PASS',
    `Received-SPF: pass (spfCheck: domain of example.net designates 192.0.2.25 as permitted sender) client-ip=192.0.2.25; envelope-from=${f.source};`,
    `Authentication-Results: amazonses.com;\r\n ${f.results}`,
    '',
  ].join('\r\n');
}

let sns = 0;
/** The SNS notification around a record, as SQS receives it without raw message delivery. */
export function envelope(
  record: unknown,
  messageId = `0f5e3b2a-1c4d-5e6f-8a9b-${String(++sns).padStart(12, '0')}`,
) {
  return JSON.stringify({
    Type: 'Notification',
    MessageId: messageId,
    TopicArn: 'arn:aws:sns:us-east-1:123456789012:pylota-mail-events',
    Message: JSON.stringify(record),
    Timestamp: new Date().toISOString(),
    SignatureVersion: '2',
    Signature: 'EXAMPLEpH+..',
    SigningCertURL:
      'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem',
    UnsubscribeURL:
      'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:123456789012:pylota-mail-events:00000000-0000-0000-0000-000000000000',
  });
}
