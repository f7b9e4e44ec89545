import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import validator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import { TRANSPORT_TASKS } from '../../functions/transports/tasks.ts';
import { REPO_ROOT } from '../../lib/defaults.ts';
import { SEND_ASL, SEND_ATTEMPT_ASL, STATE_MACHINE_SUBSTITUTIONS } from '../../lib/send-machine.ts';

// docs/architecture.md › The send machines: Claim and Record are idempotent and retried on
// infrastructure errors; Transport makes one provider call and is never retried: its failure or
// timeout is recorded as `uncertain`.

type State = Record<string, unknown> & {
  Type: string;
  Resource?: string;
  Next?: string;
  Parameters?: Record<string, unknown>;
  Arguments?: Record<string, unknown>;
  Retry?: { ErrorEquals: string[] }[];
  Catch?: { ErrorEquals: string[]; Next: string }[];
};
type States = Record<string, State>;

/** Lambda's own transient failures, as AWS advises retrying them for every Lambda task. */
const LAMBDA_SERVICE_ERRORS = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
];

const DIR = join(REPO_ROOT, 'statemachines');
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.asl.json'))
  .sort();

const read = (file: string): string => readFileSync(join(DIR, file), 'utf8');
const placeholders = (text: string): string[] =>
  [...new Set([...text.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1]))].sort();

/** Every States map of a definition: the top level, Parallel branches and Map processors. */
function statesMaps(node: unknown): States[] {
  if (node === null || typeof node !== 'object') return [];
  const found: States[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'States' && value && typeof value === 'object') found.push(value as States);
    found.push(...statesMaps(value));
  }
  return found;
}

/** The `…FunctionArn` placeholder a Task invokes, as a bare Resource or as lambda:invoke's FunctionName. */
function lambdaOf(state: State): string | undefined {
  if (state.Type !== 'Task') return undefined;
  for (const target of [state.Resource, state.Parameters?.FunctionName, state.Arguments?.FunctionName]) {
    const match = typeof target === 'string' ? /^\$\{(\w+FunctionArn)\}(:.+)?$/.exec(target) : null;
    if (match) return match[1];
  }
  return undefined;
}

/** Follows Pass states from `name`; true when the chain reaches the Record task. */
function endsInRecord(states: States, name: string): boolean {
  let current: string | undefined = name;
  for (let hops = 0; current && hops < 10; hops++) {
    const state: State | undefined = states[current];
    if (!state) return false;
    if (lambdaOf(state) === 'RecordFunctionArn') return true;
    if (state.Type !== 'Pass') return false;
    current = state.Next;
  }
  return false;
}

const lambdaTasks = files.flatMap((file) =>
  statesMaps(JSON.parse(read(file))).flatMap((states) =>
    Object.entries(states)
      .filter(([, state]) => lambdaOf(state))
      .map(([name, state]) => ({ file, name, state, states, lambda: lambdaOf(state) as string })),
  ),
);
const isTransport = (lambda: string) => lambda.endsWith('TransportFunctionArn');
const transportTasks = lambdaTasks.filter((t) => isTransport(t.lambda));
const otherLambdaTasks = lambdaTasks.filter((t) => !isTransport(t.lambda));

describe.each(files)('%s', (file) => {
  it('validates as Amazon States Language', () => {
    const result = validator(JSON.parse(read(file)));
    expect(result.errorsText()).toBe('');
    expect(result.isValid).toBe(true);
  });

  it('is deployed by the CDK, which substitutes exactly the placeholders it uses', () => {
    expect(Object.keys(STATE_MACHINE_SUBSTITUTIONS)).toContain(file);
    expect(placeholders(read(file))).toEqual([...STATE_MACHINE_SUBSTITUTIONS[file]].sort());
  });
});

describe('the Lambda tasks of the state machines', () => {
  it('include the Claim and Record tasks and one transport task per entry of the transport list', () => {
    const inAttempt = lambdaTasks.filter((t) => t.file === SEND_ATTEMPT_ASL);
    expect(inAttempt.map((t) => t.lambda)).toEqual(
      expect.arrayContaining(['ClaimFunctionArn', 'RecordFunctionArn']),
    );
    expect(inAttempt.filter((t) => isTransport(t.lambda)).map((t) => [t.name, t.lambda])).toEqual(
      TRANSPORT_TASKS.map((t) => [t.state, t.arn]),
    );
    for (const t of TRANSPORT_TASKS) {
      expect(inAttempt.find((x) => x.name === t.state)?.state.TimeoutSeconds, t.state).toBe(t.timeoutSeconds);
    }
  });

  it('choose the transport task by the provider Claim chose, and record a claim without one as rejected', () => {
    const states = JSON.parse(read(SEND_ATTEMPT_ASL)).States as States;
    const choices = states.ByProvider.Choices as { Variable: string; StringEquals: string; Next: string }[];
    expect(choices).toEqual(
      TRANSPORT_TASKS.map((t) => ({ Variable: '$.claim.provider', StringEquals: t.provider, Next: t.state })),
    );
    expect(states.IsClaimed.Choices).toEqual([expect.objectContaining({ Next: 'ByProvider' })]);
    expect(states.ByProvider.Default).toBe('NoTransport');
    expect(endsInRecord(states, 'NoTransport')).toBe(true);
    expect(states.NoTransport).toMatchObject({ InputPath: '$.claim.result', ResultPath: '$.result' });
  });

  describe.each(transportTasks.map((t) => [`${t.file} › ${t.name}`, t] as const))('%s', (_, task) => {
    it('is never retried, so one attempt makes at most one provider call', () => {
      expect(task.state.Retry ?? []).toEqual([]);
    });

    it('records a timeout and any other failure through the Record task', () => {
      const catchers = task.state.Catch ?? [];
      const timeout = catchers.findIndex((c) => c.ErrorEquals.includes('States.Timeout'));
      const all = catchers.findIndex((c) => c.ErrorEquals.includes('States.ALL'));
      expect(timeout, 'a Catch for States.Timeout').toBeGreaterThanOrEqual(0);
      expect(all, 'a Catch for States.ALL').toBeGreaterThanOrEqual(0);
      // States.ALL must come last, or the timeout catcher could never match.
      expect(timeout).toBeLessThan(all);
      expect(endsInRecord(task.states, catchers[timeout].Next), 'timeout path reaches Record').toBe(true);
      expect(endsInRecord(task.states, catchers[all].Next), 'failure path reaches Record').toBe(true);
    });
  });

  describe.each(otherLambdaTasks.map((t) => [`${t.file} › ${t.name}`, t] as const))('%s', (_, task) => {
    const retried = (task.state.Retry ?? []).flatMap((r) => r.ErrorEquals);

    it('retries store unavailability and Lambda service errors', () => {
      expect(retried).toEqual(expect.arrayContaining(['StoreUnavailable', ...LAMBDA_SERVICE_ERRORS]));
    });

    it('does not retry arbitrary task failures', () => {
      expect(retried).not.toContain('States.ALL');
      expect(retried).not.toContain('States.TaskFailed');
    });
  });
});

describe(SEND_ATTEMPT_ASL, () => {
  it('ends within the five minutes an Express execution may run', () => {
    const definition = JSON.parse(read(SEND_ATTEMPT_ASL)) as { TimeoutSeconds?: number };
    expect(definition.TimeoutSeconds).toBeGreaterThan(0);
    expect(definition.TimeoutSeconds).toBeLessThanOrEqual(300);
  });
});

/** Step Functions service-integration tasks (`arn:aws:states:::states:…`): they start executions. */
const serviceTasks = files.flatMap((file) =>
  statesMaps(JSON.parse(read(file))).flatMap((states) =>
    Object.entries(states)
      .filter(([, s]) => s.Type === 'Task' && String(s.Resource).startsWith('arn:aws:states:::states:'))
      .map(([name, state]) => ({ file, name, state })),
  ),
);

describe('the Step Functions tasks of the state machines', () => {
  it('are the Standard machine starting an attempt synchronously and the attempt starting the Standard machine', () => {
    expect(serviceTasks.map((t) => `${t.file} › ${t.name} › ${t.state.Resource}`).sort()).toEqual([
      `${SEND_ATTEMPT_ASL} › StartStandard › arn:aws:states:::states:startExecution`,
      `${SEND_ASL} › Attempt › arn:aws:states:::states:startExecution.sync:2`,
    ]);
  });

  describe.each(serviceTasks.map((t) => [`${t.file} › ${t.name}`, t] as const))('%s', (_, task) => {
    it('retries only Step Functions service errors, and catches every other failure', () => {
      const retried = (task.state.Retry ?? []).flatMap((r) => r.ErrorEquals);
      expect(retried.length).toBeGreaterThan(0);
      for (const e of retried) expect(e).toMatch(/^(StepFunctions\.|States\.Timeout$)/);
      expect((task.state.Catch ?? []).some((c) => c.ErrorEquals.includes('States.ALL'))).toBe(true);
    });
  });

  it('start the Standard machine under the name Record wrote on the message', () => {
    const attempt = JSON.parse(read(SEND_ATTEMPT_ASL)).States as States;
    expect(attempt.StartStandard.Parameters).toMatchObject({ 'Name.$': '$.record.start.name' });
    const already = (attempt.StartStandard.Catch ?? []).find((c) =>
      c.ErrorEquals.includes('StepFunctions.ExecutionAlreadyExistsException'),
    );
    expect(already?.Next, 'an execution of that name exists: nothing to start').toBe('Done');
  });
});

describe(SEND_ASL, () => {
  const definition = () => JSON.parse(read(SEND_ASL)) as { States: States; TimeoutSeconds?: number };

  it('waits until send_at, runs the attempt, and loops on its back-off seconds', () => {
    const s = definition().States;
    expect(s.WaitUntilSendAt).toMatchObject({ Type: 'Wait', TimestampPath: '$.send_at' });
    expect(s.Backoff).toMatchObject({ Type: 'Wait', SecondsPath: '$.attempt.record.seconds' });
    expect(s.Attempt.Parameters).toMatchObject({
      StateMachineArn: '${SendAttemptStateMachineArn}',
      Input: { 'parent.$': '$$.Execution.Name', 'hand_off.$': '$.hand_off' },
    });
  });

  it('hands off to a new execution well before the 25,000-event history limit', () => {
    const s = definition().States;
    const limit = (s.NearHistoryLimit.Choices as { NumericGreaterThanEquals: number }[])[0]
      .NumericGreaterThanEquals;
    // One loop: Attempt (entered, scheduled, started, submitted, succeeded, exited), then the entered
    // and exited events of AfterAttempt, Backoff, Count and NearHistoryLimit.
    const perLoop = 6 + 2 * 4;
    expect((limit + 2) * perLoop + 20).toBeLessThan(25_000);
  });
});
