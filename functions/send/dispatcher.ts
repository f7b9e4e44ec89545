import {
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';

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

/** `attempt`: the Express send-attempt machine; `send`: the Standard machine of waits (DESIGN § 6). */
export type MachineKind = 'attempt' | 'send';

/**
 * Starts the execution named on the message (DESIGN § 6). Production: Step Functions
 * StartExecution on the Express or the Standard machine; local: the same ASL run in-process.
 */
export interface Dispatcher {
  start(executionName: string, input: SendInput, machine?: MachineKind): Promise<void>;
  /** Whether the named execution of the Standard machine is still running (the sweeper asks). */
  isRunning?(executionName: string): Promise<boolean>;
}

export function stepFunctionsDispatcher(
  arns: { attempt: string; send?: string },
  client = new SFNClient({ maxAttempts: 3 }),
): Dispatcher {
  const arnOf = (machine: MachineKind) => {
    const arn = machine === 'send' ? arns.send : arns.attempt;
    if (!arn) throw new Error(`no state machine ARN for ${machine}`);
    return arn;
  };
  return {
    async start(name, input, machine = 'attempt') {
      try {
        await client.send(
          new StartExecutionCommand({ stateMachineArn: arnOf(machine), name, input: JSON.stringify(input) }),
        );
      } catch (err) {
        // The name was started already (a retried start): the execution it names exists.
        if ((err as Error).name !== 'ExecutionAlreadyExists') throw err;
      }
    },
    async isRunning(name) {
      const executionArn = `${arnOf('send').replace(':stateMachine:', ':execution:')}:${name}`;
      try {
        const out = await client.send(new DescribeExecutionCommand({ executionArn }));
        return out.status === 'RUNNING';
      } catch (err) {
        if (err instanceof ExecutionDoesNotExist || (err as Error).name === 'ExecutionDoesNotExist')
          return false;
        throw err;
      }
    },
  };
}

/**
 * The execution name for the n-th dispatch of a message: `{message id}-d{n}` on the Express machine,
 * `{message id}-s{n}` on the Standard one (the sweeper tells them apart by it).
 */
export const executionName = (messageId: string, n: number, machine: MachineKind = 'attempt') =>
  `${messageId}-${machine === 'send' ? 's' : 'd'}${n}`;

export const isStandardExecution = (name: string) => /-s\d+$/.test(name);

/**
 * The Lambda factory of the dispatcher (functions/env.ts › loadLambdaDeps): the stack's two machines.
 * A function whose environment names no attempt machine (the machine's own tasks: it cannot name
 * itself) gets a dispatcher that throws, and its callers leave the start to the sweeper.
 */
export const sfnDispatcher = (): Dispatcher => {
  const attempt = process.env.PMAIL_SEND_ATTEMPT_ARN;
  if (attempt) return stepFunctionsDispatcher({ attempt, send: process.env.PMAIL_SEND_ARN });
  return {
    start: async () => {
      throw new Error('PMAIL_SEND_ATTEMPT_ARN is not set for this function');
    },
  };
};
