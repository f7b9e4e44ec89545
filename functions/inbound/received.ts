import type { AuthResults } from '../core/trust.ts';
import { INBOUND_RAW_PREFIX, type SesReceivedNotification, type SesVerdict } from './notification.ts';

/** The bucket name the notifications built here carry when none is given. */
export const LOCAL_INBOUND_BUCKET = 'pmail-local-blobs';

/**
 * The notification SES's S3 action publishes for one stored message (`objectKey` under
 * `inbound/raw/`), as the local MX and loopback delivery build it. A verdict not given is `GRAY`
 * ("could not be determined"): neither scans for spam or viruses. The local MX hands over the
 * verdicts it computed (`authentication`), and SES's statuses follow from them.
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
  /** The local MX's own verdicts (functions/local/mx-auth.ts); SES's statuses are given from them. */
  authentication?: AuthResults;
}): SesReceivedNotification {
  const iso = new Date(opts.at).toISOString();
  const a = opts.authentication;
  const sesOf = (word: string | undefined) => (word === 'pass' ? 'PASS' : word === 'fail' ? 'FAIL' : 'GRAY');
  const computed: Partial<Record<string, SesVerdict>> = a
    ? { spf: sesOf(a.spf), dkim: sesOf(a.dkim), dmarc: sesOf(a.dmarc) }
    : {};
  const v = (k: 'spam' | 'virus' | 'spf' | 'dkim' | 'dmarc') => ({
    status: opts.verdicts?.[k] ?? computed[k] ?? 'GRAY',
  });
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
      ...(a ? { authentication: a } : {}),
      action: {
        type: 'S3',
        bucketName: opts.bucket ?? LOCAL_INBOUND_BUCKET,
        objectKeyPrefix: INBOUND_RAW_PREFIX,
        objectKey: `${INBOUND_RAW_PREFIX}${opts.id}`,
      },
    },
  };
}
