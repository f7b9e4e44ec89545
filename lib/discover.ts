import { Stack } from 'aws-cdk-lib';
import { CfnEventSourceMapping, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { IConstruct } from 'constructs';

/**
 * What the dashboard and the alarms watch, found in the stack rather than listed: every Lambda
 * function, state machine and queue, whichever construct added it. Call it after every other
 * construct is in the stack (PmailStack builds its observability last).
 */
export interface Discovered {
  functions: { label: string; fn: LambdaFunction }[];
  stateMachines: { label: string; machine: StateMachine }[];
  /** Queues a function reads (their age matters). */
  workQueues: { label: string; queue: Queue }[];
  /**
   * Queues where failures wait for an operator: some queue's dead-letter queue, or a queue no
   * event source mapping reads (an on-failure destination such as the fan-out's). Alarm when not empty.
   */
  deadLetterQueues: { label: string; queue: Queue }[];
}

/** A construct's path inside its stack, without the trailing `/Fn` or `/Resource`, e.g. `Api/Messages`. */
export function labelOf(c: IConstruct): string {
  const stack = Stack.of(c);
  return c.node.path
    .slice(stack.node.path.length + 1)
    .replace(/\/(Fn|Resource)$/, '')
    .replace(/\//g, ' ');
}

export function discover(stack: Stack): Discovered {
  const all = stack.node.findAll();
  const functions = all
    .filter((c): c is LambdaFunction => c instanceof LambdaFunction && Stack.of(c) === stack)
    .map((fn) => ({ label: labelOf(fn), fn }));
  const stateMachines = all
    .filter((c): c is StateMachine => c instanceof StateMachine)
    .map((machine) => ({ label: labelOf(machine), machine }));
  const queues = all.filter((c): c is Queue => c instanceof Queue);
  const read = new Set(
    all
      .filter((c): c is CfnEventSourceMapping => c instanceof CfnEventSourceMapping)
      .map((m) => JSON.stringify(stack.resolve(m.eventSourceArn))),
  );
  const dlqs = new Set(queues.flatMap((q) => (q.deadLetterQueue ? [q.deadLetterQueue.queue] : [])));
  const isDlq = (q: Queue) => dlqs.has(q) || !read.has(JSON.stringify(stack.resolve(q.queueArn)));
  return {
    functions,
    stateMachines,
    workQueues: queues.filter((q) => !isDlq(q)).map((queue) => ({ label: labelOf(queue), queue })),
    deadLetterQueues: queues.filter(isDlq).map((queue) => ({ label: labelOf(queue), queue })),
  };
}
