/** One recipient's block of a report's `message/delivery-status` part. */
export interface ReportedRecipient {
  recipient: string;
  action: string;
  status: string;
  diagnostic?: string;
}

let n = 0;

/**
 * A Postfix-shaped delivery status notification (test/fixtures/dsn/postfix-user-unknown.eml) about
 * the message `rfcId` sent by `sender`, addressed to `to` (a return path, or any address).
 */
export function dsnReport(opts: {
  to: string;
  sender: string;
  rfcId: string;
  reports: ReportedRecipient[];
  reportId?: string;
}): string {
  return [
    'From: MAILER-DAEMON@mx.example.net (Mail Delivery System)',
    `To: ${opts.to}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Auto-Submitted: auto-replied',
    `Message-Id: ${opts.reportId ?? `<${Date.now().toString(36)}.${++n}.dsn@mx.example.net>`}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="B0UND"',
    '',
    '--B0UND',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is the mail system at host mx.example.net.',
    '',
    '--B0UND',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    '',
    ...opts.reports.flatMap((r) => [
      `Final-Recipient: rfc822; ${r.recipient}`,
      `Action: ${r.action}`,
      `Status: ${r.status}`,
      ...(r.diagnostic ? [`Diagnostic-Code: smtp; ${r.diagnostic}`] : []),
      '',
    ]),
    '--B0UND',
    'Content-Type: text/rfc822-headers',
    '',
    `Message-ID: ${opts.rfcId}`,
    `From: ${opts.sender}`,
    'Subject: Order',
    '',
    '--B0UND--',
    '',
  ].join('\r\n');
}
