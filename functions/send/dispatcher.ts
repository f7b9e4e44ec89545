import { executionStart, type MachineKind } from '../core/dispatch.ts';
import type { MessageRecord } from '../core/model.ts';

export { executionName, isStandardExecution, type MachineKind } from '../core/dispatch.ts';

/** What the send-attempt machine takes as input. */
export interface SendAttemptInput {
  tenant_id: string;
  identity_id: string;
  message_id: string;
  /** Set by the Standard `send` machine: the name of the execution that runs this attempt. */
  parent?: string;
  /** Set by the parent when its history is near the limit: continue in a new execution. */
  hand_off?: boolean;
}

/** What the Standard `send` machine takes: the attempt's input and, optionally, when to start. */
export interface SendInput extends Omit<SendAttemptInput, 'parent' | 'hand_off'> {
  /** RFC 3339: wait until then (a scheduled send, or the retry time of a back-off). */
  send_at?: string;
}

/**
 * Starts an execution of one of the two send machines (core/dispatch.ts › MachineKind). Production:
 * Step Functions StartExecution on the Express or the Standard machine
 * (functions/adapters/step-functions.ts); local: the same ASL run in-process. Callers start a
 * message's execution through `startExecution`, never this directly.
 */
export interface Dispatcher {
  start(executionName: string, input: SendInput, machine?: MachineKind): Promise<void>;
  /** Whether the named execution of the Standard machine is still running (the sweeper asks). */
  isRunning?(executionName: string): Promise<boolean>;
}

/**
 * Start the execution the message names, after the write that named it: the one rule of
 * core/dispatch.ts › executionStart (the message's own name, on the machine that name was minted
 * for, a Standard one waiting until the dispatch time). The submit, its takeover by a retried
 * request, an operator retry, Claim's re-dispatch and the sweeper all start through this, so a
 * second start of one name is the same StartExecution and Step Functions refuses a second Standard
 * execution by its name. Nothing when the message names no execution. A failed start leaves the
 * message queued with its dispatch: the sweeper finds it.
 */
export async function startExecution(dispatcher: Dispatcher, m: MessageRecord): Promise<void> {
  const start = executionStart(m);
  if (start) await dispatcher.start(start.name, start.input, start.machine);
}
