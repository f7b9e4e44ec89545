import {
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import type { MachineKind } from '../core/dispatch.ts';
import type { Dispatcher } from '../send/dispatcher.ts';

/** The Step Functions adapter of the dispatcher port (functions/send/dispatcher.ts). */
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
 * The Lambda factory of the dispatcher (functions/env.ts › loadLambdaDeps): the stack's two machines.
 * A function whose environment names no attempt machine (the machine's own tasks: it cannot name
 * itself) gets a dispatcher that throws, and its callers leave the start to the sweeper.
 */
export const sfnDispatcher = (_required?: (name: string) => string, client?: SFNClient): Dispatcher => {
  const attempt = process.env.PMAIL_SEND_ATTEMPT_ARN;
  if (attempt) return stepFunctionsDispatcher({ attempt, send: process.env.PMAIL_SEND_ARN }, client);
  return {
    start: async () => {
      throw new Error('PMAIL_SEND_ATTEMPT_ARN is not set for this function');
    },
  };
};

/**
 * `GET /health`'s view of the machines (the meta group, functions/api/meta.api.ts): both the attempt
 * and the send machine (PMAIL_SEND_ATTEMPT_ARN, PMAIL_SEND_ARN) answer DescribeStateMachine ACTIVE.
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_DescribeStateMachine.html
 */
export function sfnMachinesStatus(
  client: SFNClient = new SFNClient({}),
): () => Promise<'ok' | 'unreachable' | 'not_configured'> {
  const arns = [process.env.PMAIL_SEND_ATTEMPT_ARN, process.env.PMAIL_SEND_ARN].filter(
    (a): a is string => !!a,
  );
  return async () => {
    if (arns.length === 0) return 'not_configured';
    const out = await Promise.all(
      arns.map((arn) => client.send(new DescribeStateMachineCommand({ stateMachineArn: arn }))),
    );
    return out.every((m) => m.status === 'ACTIVE') ? 'ok' : 'unreachable';
  };
}
