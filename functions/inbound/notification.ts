import type { AuthResults } from '../core/trust.ts';

/**
 * What SES receiving hands pmail for one received message: the notification its S3 action publishes
 * (to SNS, and from there, with raw message delivery, as the body of one SQS message on the ingest
 * queue). The local MX and loopback build the same object, so every message comes in one way.
 * Only the fields pmail reads are typed; SES sends more. docs/receiving.md describes the way in.
 */
export type SesVerdict = 'PASS' | 'FAIL' | 'GRAY' | 'PROCESSING_FAILED' | 'DISABLED';

export interface SesReceivedNotification {
  notificationType: 'Received';
  mail: {
    /** ISO 8601. */
    timestamp: string;
    /** The envelope sender (MAIL FROM); empty for a bounce (`<>`). */
    source: string;
    /** SES's id of the received message; the S3 object key ends with it. */
    messageId: string;
    destination: string[];
  };
  receipt: {
    timestamp: string;
    /** The envelope recipients this rule accepted (RCPT TO), the ones pmail routes. */
    recipients: string[];
    spamVerdict?: { status: SesVerdict };
    virusVerdict?: { status: SesVerdict };
    spfVerdict?: { status: SesVerdict };
    dkimVerdict?: { status: SesVerdict };
    dmarcVerdict?: { status: SesVerdict };
    /**
     * pmail's own: the verdicts the local MX computed with mailauth (functions/local/mx-auth.ts).
     * SES never sets it; the ingest then reads SES's verdicts (core/trust.ts › authFromSes).
     */
    authentication?: AuthResults;
    action: {
      type: 'S3';
      bucketName: string;
      objectKeyPrefix?: string;
      /** Where the raw message is: the blob store key. */
      objectKey: string;
    };
  };
}

/** The blob store prefix of received raw messages (the receipt rule's S3 action writes there). */
export const INBOUND_RAW_PREFIX = 'inbound/raw/';
