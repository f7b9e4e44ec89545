import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';

/** What the send-attempt machine takes as input. */
export interface SendAttemptInput {
  tenant_id: string;
  identity_id: string;
  message_id: string;
}

/**
 * Starts the execution named on the message (DESIGN § 6). Production: Step Functions
 * StartExecution on the Express machine; local: the same ASL run in-process (functions/local).
 */
export interface Dispatcher {
  start(executionName: string, input: SendAttemptInput): Promise<void>;
}

export function stepFunctionsDispatcher(
  stateMachineArn: string,
  client = new SFNClient({ maxAttempts: 3 }),
): Dispatcher {
  return {
    async start(name, input) {
      await client.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }));
    },
  };
}

/** The execution name for the n-th dispatch of a message: `{message id}-d{n}`. */
export const executionName = (messageId: string, n: number) => `${messageId}-d${n}`;
