import type { MessageRecord } from './model.ts';

/**
 * The two send machines (docs/architecture.md › The send machines): `attempt`, the Express
 * send-attempt machine, runs one attempt now; `send`, the Standard machine, waits until a time (a
 * scheduled send, a back-off's retry time) and runs the attempts after it.
 */
export type MachineKind = 'attempt' | 'send';

/**
 * The execution name of the n-th dispatch of a message: `{message id}-s{n}` on the Standard machine,
 * `{message id}-d{n}` on the Express one. The write that names the execution on the message is
 * where the machine is chosen (a dispatch that waits is Standard); the name carries that choice.
 */
export const executionName = (messageId: string, n: number, machine: MachineKind = 'attempt') =>
  `${messageId}-${machine === 'send' ? 's' : 'd'}${n}`;

/** The machine an execution name was minted for (`executionName`). */
export const machineOf = (name: string): MachineKind => (/-s\d+$/.test(name) ? 'send' : 'attempt');

export const isStandardExecution = (name: string) => machineOf(name) === 'send';

/** One StartExecution: the name, the machine and the input. */
export interface ExecutionStart {
  name: string;
  machine: MachineKind;
  input: { tenant_id: string; identity_id: string; message_id: string; send_at?: string };
}

/**
 * The one rule for starting the execution a queued message names, whoever starts it (the submit,
 * its takeover by a retried request, an operator retry, Claim's re-dispatch, the sweeper): the name
 * is the message's `dispatch.execution`, never derived again; the machine is the one that name was
 * minted for, whatever `send_at` says (a scheduled message retried or re-dispatched now names an
 * Express execution; a back-off of a message that was never scheduled names a Standard one); a
 * Standard execution waits until `dispatch.at`. Every start of one name is the same StartExecution,
 * so Step Functions refuses a second Standard execution of it by its name. Undefined when the
 * message names no execution (not queued, or no dispatch).
 */
export function executionStart(m: MessageRecord): ExecutionStart | undefined {
  if (m.status !== 'queued' || !m.dispatch) return undefined;
  const name = m.dispatch.execution;
  const machine = machineOf(name);
  const ids = { tenant_id: m.tenant_id, identity_id: m.identity_id, message_id: m.id };
  return {
    name,
    machine,
    input: machine === 'send' ? { ...ids, send_at: new Date(m.dispatch.at).toISOString() } : ids,
  };
}
