import { INBOUND_RAW_PREFIX, type SesReceivedNotification } from './notification.ts';

/** The bucket name the notifications built here carry when none is given. */
export const LOCAL_INBOUND_BUCKET = 'pmail-local-blobs';

/**
 * The notification SES's S3 action publishes for one stored message (`objectKey` under
 * `inbound/raw/`), as the local MX and loopback delivery build it. A verdict not given is `GRAY`
 * ("could not be determined"): neither scans for spam or viruses, and the local MX cannot check
 * SPF, DKIM or DMARC (the sender connects over loopback, no DNS is asked), so it claims no `PASS`.
 */
export function receivedNotification(opts: {
  id: string;
  at: number;
  source: string;
  destination: string[];
  recipients: string[];
  /** The bucket the raw message is in (the blob store is a folder locally). */
  bucket?: string;
  verdicts?: Partial<Record<'spam' | 'virus' | 'spf' | 'dkim' | 'dmarc', 'PASS' | 'GRAY'>>;
}): SesReceivedNotification {
  const iso = new Date(opts.at).toISOString();
  const v = (k: 'spam' | 'virus' | 'spf' | 'dkim' | 'dmarc') => ({ status: opts.verdicts?.[k] ?? 'GRAY' });
  return {
    notificationType: 'Received',
    mail: { timestamp: iso, source: opts.source, messageId: opts.id, destination: opts.destination },
    receipt: {
      timestamp: iso,
      recipients: opts.recipients,
      spamVerdict: v('spam'),
      virusVerdict: v('virus'),
      spfVerdict: v('spf'),
      dkimVerdict: v('dkim'),
      dmarcVerdict: v('dmarc'),
      action: {
        type: 'S3',
        bucketName: opts.bucket ?? LOCAL_INBOUND_BUCKET,
        objectKeyPrefix: INBOUND_RAW_PREFIX,
        objectKey: `${INBOUND_RAW_PREFIX}${opts.id}`,
      },
    },
  };
}
