import type { Operation } from '../../core/compose.ts';
import type { ApiMessage } from '../../core/message-view.ts';
import type { Identity, Tenant } from '../../core/model.ts';
import type { ParsedSend } from '../../core/send-command.ts';
import type { Deps } from '../../deps.ts';
import type { Db } from '../../store/db.ts';
import type { FirstRead } from '../../store/submit-read.store.ts';
import type { PreparePorts } from '../prepare.ts';

/** The ports a send takes (the pipeline's loads and the composition among them: send/prepare.ts). */
export type SubmitPorts = PreparePorts & Pick<Deps, 'dispatcher' | 'log'>;

/** The ports of the count and the writes. */
export type WritePorts = Pick<Deps, 'db' | 'blobs' | 'clock' | 'log'>;

/** The first read of a send (store/submit-read.store.ts) and the instant it was taken at. */
export type FirstReadAt = FirstRead & { now: number };

/** What the route's checks on the first read admitted: the caller, the identity, the body. */
export interface AdmittedSend {
  /**
   * How to read the identity's tenant, given the pipeline's batched reads: read in one BatchGetItem
   * with the pipeline's first reads, beside the reservation (one round trip).
   */
  tenant: (db: Db) => Promise<Tenant>;
  identity: Identity;
  /** Checked by the route: present unless this is a dry run. */
  idempotencyKey: string | undefined;
  /** The body, parsed and validated by the route; `raw` is what the fingerprint hashes. */
  request: ParsedSend;
  dryRun?: boolean;
  /** The calling key is draft-only: every send through it waits for approval (core/approval.ts). */
  sendsNeedApproval?: boolean;
}

/** A send as the route hands it to the use case: the operation, its first read, what was admitted. */
export interface SubmitInput extends AdmittedSend {
  operation: Operation;
  /** reply, reply_all, forward: the message answered or forwarded. */
  targetMessageId?: string;
  requestId: string;
  first: FirstReadAt;
}

export type SubmitResult =
  | { type: 'accepted'; message: ApiMessage; deduplicated: boolean }
  | { type: 'dry_run'; result: DryRunResult };

export interface DryRunResult {
  would_send: true;
  recipients: { address: string; field: string; status: 'queued' | 'suppressed'; reason?: string }[];
}

/** The answer of a key that holds one: the message it stored, replayed. */
export function replayed(response: string): SubmitResult {
  return { type: 'accepted', message: JSON.parse(response) as ApiMessage, deduplicated: true };
}

export const keyFlags = (input: Pick<AdmittedSend, 'sendsNeedApproval'>) => ({
  sends_need_approval: input.sendsNeedApproval === true,
});
