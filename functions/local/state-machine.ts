import './polyfill.ts';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StateMachine } from 'aws-local-stepfunctions';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import type { Dispatcher, SendAttemptInput } from '../send/dispatcher.ts';
import { sendAttemptTasks } from '../send/tasks.ts';

const ASL = fileURLToPath(new URL('../../statemachines/send-attempt.asl.json', import.meta.url));

/** The ARNs the CDK substitutes; locally any well-formed ARN will do, the tasks run in-process. */
const LOCAL_ARNS: Record<string, string> = {
  ClaimFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:pmail-claim',
  TransportFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:pmail-transport',
  RecordFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:pmail-record',
};

export function loadDefinition(file = ASL, arns = LOCAL_ARNS): object {
  const text = readFileSync(file, 'utf8').replace(/\$\{(\w+)\}/g, (m, name: string) => arns[name] ?? m);
  return JSON.parse(text);
}

type Handlers = Record<string, (input: never) => Promise<unknown>>;

/**
 * Runs statemachines/send-attempt.asl.json with aws-local-stepfunctions, its Task states bound to
 * the same task functions the Lambdas export (DESIGN § 7). Executions run in the background, as an
 * Express StartExecution does; `idle()` waits for every one started so far.
 */
export class LocalSendMachine implements Dispatcher {
  private readonly machine = new StateMachine(loadDefinition() as never, {
    validationOptions: { checkArn: true, checkPaths: true },
  });
  private readonly running = new Set<Promise<unknown>>();
  /** Execution names started, in order (tests read it). */
  readonly started: string[] = [];

  constructor(
    private readonly deps: Deps,
    private readonly overrides: Partial<Handlers> = {},
  ) {}

  async start(name: string, input: SendAttemptInput): Promise<void> {
    this.started.push(name);
    const run = this.run(name, input).catch((err) =>
      this.deps.log.error('local execution failed', { execution: name, ...errorFields(err) }),
    );
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /** Run one execution to its end and return its output. */
  async run(name: string, input: SendAttemptInput): Promise<unknown> {
    const handlers: Handlers = {
      Claim: sendAttemptTasks.Claim(this.deps) as Handlers[string],
      Transport: sendAttemptTasks.Transport(this.deps) as Handlers[string],
      Record: sendAttemptTasks.Record(this.deps) as Handlers[string],
      ...this.overrides,
    };
    const execution = this.machine.run(input as never, {
      overrides: {
        taskResourceLocalHandlers: handlers as never,
        retryIntervalOverrides: { Claim: 10, Record: 10 },
      },
      context: {
        Execution: {
          // Express execution ids carry a unique suffix: duplicates of one name are distinct.
          Id: `arn:aws:states:us-east-1:000000000000:express:pmail-send-attempt:${name}:${randomUUID()}`,
          Name: name,
          StartTime: new Date(this.deps.clock()).toISOString(),
          Input: input as never,
        },
      } as never,
    });
    return execution.result;
  }

  idleNow(): boolean {
    return this.running.size === 0;
  }

  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
