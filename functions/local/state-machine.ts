import './polyfill.ts';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StateMachine } from 'aws-local-stepfunctions';
import type { TransportTaskResult } from '../core/transport-result.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import type { Dispatcher, MachineKind, SendAttemptInput, SendInput } from '../send/dispatcher.ts';
import { sendAttemptTasks } from '../send/tasks.ts';
import { TRANSPORT_TASKS } from '../transports/tasks.ts';
import type { Transport, TransportProvider } from '../transports/transport.ts';
import { asLambda } from './aws-calls.ts';
import { type LocalTransportOptions, localTransports } from './transports.ts';

const ASL = fileURLToPath(new URL('../../statemachines/send-attempt.asl.json', import.meta.url));
const SEND_ASL = fileURLToPath(new URL('../../statemachines/send.asl.json', import.meta.url));

/** The ARNs the CDK substitutes; locally any well-formed ARN will do, the tasks run in-process. */
const LOCAL_ARNS: Record<string, string> = {
  ClaimFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:pmail-claim',
  RecordFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:pmail-record',
  SendStateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:pmail-send',
  SendAttemptStateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:pmail-send-attempt',
  ...Object.fromEntries(
    TRANSPORT_TASKS.map((t) => [t.arn, `arn:aws:lambda:us-east-1:000000000000:function:pmail-${t.provider}`]),
  ),
};

export function loadDefinition(file = ASL, arns = LOCAL_ARNS): object {
  const text = readFileSync(file, 'utf8').replace(/\$\{(\w+)\}/g, (m, name: string) => arns[name] ?? m);
  return JSON.parse(text);
}

type Handlers = Record<string, (input: never) => Promise<unknown>>;

/** Each task state runs as its Lambda: the send-attempt service's part of that name. */
const asTaskLambdas = (handlers: Handlers): Handlers =>
  Object.fromEntries(
    Object.entries(handlers).map(([state, handle]) => [
      state,
      (input: never) => asLambda({ service: 'send-attempt', part: state }, () => handle(input)),
    ]),
  );

export interface LocalMachineOptions {
  /** Milliseconds for the Wait states of send.asl.json (`Backoff`, `WaitUntilSendAt`); tests use 0. */
  waitTimeOverrides?: Record<string, number>;
  /** Called with every state event of a Standard execution (measurements of its history). */
  onStandardEvent?: (execution: string, type: string) => void;
  /** The adapters of the transport tasks; default: functions/local/transports.ts. */
  transports?: Partial<Record<TransportProvider, Transport>>;
  /** Options of the default adapters (the relays' secrets, SMTP settings). */
  transportOptions?: LocalTransportOptions;
  faults?: LocalFaults;
}

/**
 * Test-only faults, outside the production ports: `afterProviderCall` runs when a transport task's
 * adapter has answered; throwing there loses the answer, as a Lambda killed after the provider call.
 */
export interface LocalFaults {
  afterProviderCall?: (messageId: string) => void | Promise<void>;
}

/**
 * Runs statemachines/send-attempt.asl.json (Express) and statemachines/send.asl.json (Standard) with
 * aws-local-stepfunctions, their Task states bound to the same task functions the Lambdas export;
 * the Standard machine's `startExecution.sync` runs the attempt machine in-process.
 * Executions run in the background, as StartExecution does; `idle()` waits for every one started.
 */
export class LocalSendMachine implements Dispatcher {
  private readonly machine = new StateMachine(loadDefinition() as never, {
    validationOptions: { checkArn: true, checkPaths: true },
  });
  private readonly sendMachine = new StateMachine(loadDefinition(SEND_ASL) as never, {
    validationOptions: { checkArn: true, checkPaths: true },
  });
  private readonly running = new Set<Promise<unknown>>();
  /** Standard executions by name while they run; `names` keeps every name ever started. */
  private readonly standard = new Map<string, { abort: () => void }>();
  private readonly names = new Set<string>();
  private seq = 0;
  /** Execution names started, in order (tests read it). */
  readonly started: string[] = [];

  constructor(
    private readonly deps: Deps,
    private readonly overrides: Partial<Handlers> = {},
    private readonly opts: LocalMachineOptions = {},
  ) {}

  async start(name: string, input: SendInput, machine: MachineKind = 'attempt'): Promise<void> {
    if (machine === 'send') {
      // Standard execution names are unique: a second start of one name starts nothing.
      if (this.names.has(name)) return;
      this.names.add(name);
    }
    this.started.push(name);
    const work = machine === 'send' ? this.runStandard(name, input) : this.run(name, input);
    const run = work.catch((err) =>
      this.deps.log.error('local execution failed', { execution: name, ...errorFields(err) }),
    );
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  async isRunning(name: string): Promise<boolean> {
    return this.standard.has(name);
  }

  /** Run one attempt execution to its end and return its output. */
  async run(name: string, input: SendAttemptInput): Promise<unknown> {
    const handlers: Handlers = {
      Claim: sendAttemptTasks.Claim(this.deps) as Handlers[string],
      ...this.transportHandlers(),
      Record: sendAttemptTasks.Record(this.deps) as Handlers[string],
      StartStandard: (async (p: { Name: string; Input: SendInput }) => {
        await this.start(p.Name, p.Input, 'send');
        return { ExecutionArn: `${LOCAL_ARNS.SendStateMachineArn}:${p.Name}` };
      }) as Handlers[string],
      ...this.overrides,
    };
    const execution = this.machine.run(input as never, {
      overrides: {
        taskResourceLocalHandlers: asTaskLambdas(handlers) as never,
        retryIntervalOverrides: { Claim: 10, Record: 10, StartStandard: 10 },
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

  /** One handler per transport task state (functions/transports/tasks.ts), with the test faults. */
  private transportHandlers(): Handlers {
    const transports = this.opts.transports ?? localTransports(this.deps, this.opts.transportOptions);
    const faults = this.opts.faults;
    const out: Handlers = {};
    for (const spec of TRANSPORT_TASKS) {
      const transport = transports[spec.provider];
      if (!transport) continue;
      const task = sendAttemptTasks.Transport(transport, spec)(this.deps);
      out[spec.state] = (async (input: Parameters<typeof task>[0]): Promise<TransportTaskResult> => {
        const result = await task(input);
        await faults?.afterProviderCall?.(input.message_id);
        return result;
      }) as Handlers[string];
    }
    return out;
  }

  /** Run one execution of the Standard send machine to its end. */
  private async runStandard(name: string, input: SendInput): Promise<unknown> {
    const execution = this.sendMachine.run(input as never, {
      overrides: {
        taskResourceLocalHandlers: {
          Attempt: async (p: { Input: SendAttemptInput }) => ({
            Output: await this.run(`${name}-a${++this.seq}`, p.Input),
          }),
        } as never,
        waitTimeOverrides: this.opts.waitTimeOverrides,
        retryIntervalOverrides: { Attempt: 10 },
      },
      noThrowOnAbort: true,
      context: {
        Execution: {
          Id: `arn:aws:states:us-east-1:000000000000:execution:pmail-send:${name}`,
          Name: name,
          StartTime: new Date(this.deps.clock()).toISOString(),
          Input: input as never,
        },
      } as never,
    });
    this.standard.set(name, execution);
    const onEvent = this.opts.onStandardEvent;
    if (onEvent) {
      void (async () => {
        for await (const e of execution.eventLogs) onEvent(name, e.type);
      })();
    }
    try {
      return await execution.result;
    } finally {
      this.standard.delete(name);
    }
  }

  /** Stop every Standard execution (a long wait would otherwise outlive the runtime). */
  abortAll(): void {
    for (const e of this.standard.values()) e.abort();
  }

  idleNow(): boolean {
    return this.running.size === 0;
  }

  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
