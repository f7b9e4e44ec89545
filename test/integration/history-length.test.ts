import { describe, expect, it } from 'vitest';
import { LocalSendMachine } from '../../functions/local/state-machine.ts';
import type { RecordOutput } from '../../functions/send/attempt.ts';
import { sendAttemptTasks } from '../../functions/send/tasks.ts';
import { testStack } from '../support/local.ts';

/**
 * A measurement, not a check of behaviour (run with PMAIL_MEASURE_HISTORY=1): a RateLimit back-off
 * run to its 24-hour end on the local Standard machine, the clock moved by each wait, counting the
 * state events of each Standard execution. AWS adds, per `startExecution.sync` task, TaskScheduled,
 * TaskStarted, TaskSubmitted and TaskSucceeded, and ExecutionStarted/Succeeded per execution.
 */
describe.runIf(process.env.PMAIL_MEASURE_HISTORY)('execution history of a 24-hour RateLimit back-off', () => {
  it('stays under 25,000 events per execution', async () => {
    let now = Date.UTC(2026, 0, 5, 9);
    const s = await testStack({ clock: () => now });
    const events = new Map<string, { states: number; attempts: number }>();
    const count = (name: string) => {
      const e = events.get(name) ?? { states: 0, attempts: 0 };
      events.set(name, e);
      return e;
    };
    const record = sendAttemptTasks.Record(s.deps);
    const machine = new LocalSendMachine(
      s.deps,
      {
        Record: (async (input: never) => {
          const out: RecordOutput = await record(input);
          if (out.next === 'wait') now += out.seconds! * 1000;
          if (out.next === 'start') now = Date.parse(out.start!.input.send_at);
          return out;
        }) as never,
      },
      {
        waitTimeOverrides: { Backoff: 0, WaitUntilSendAt: 0 },
        onStandardEvent: (name, type) => {
          if (type === 'StateEntered' || type === 'StateExited') count(name).states++;
        },
      },
    );
    s.deps.dispatcher = machine;
    // attempt executions of a Standard execution are named `{standard}-a{k}`
    const run = machine.run.bind(machine);
    machine.run = (name, input) => {
      const parent = /^(.*-s\d+)-a\d+$/.exec(name)?.[1];
      if (parent) count(parent).attempts++;
      return run(name, input);
    };
    try {
      const sent = await s.send({ to: ['ratelimit-always@simulator.invalid'], subject: 'R', text: 'x' });
      await machine.idle();
      const m = await s.message(s.agent.id, sent.body.id);
      expect(m?.status_reason).toBe('quota_exhausted');
      const report = [...events].map(([name, e]) => ({
        name,
        attempts: e.attempts,
        localStateEvents: e.states,
        // AWS: 4 task events per startExecution.sync (Scheduled, Started, Submitted, Succeeded) and
        // ExecutionStarted/ExecutionSucceeded.
        awsHistoryEvents: e.states + 4 * e.attempts + 2,
      }));
      console.log(JSON.stringify({ outcome: m?.status_detail, report }, null, 1));
      for (const r of report) expect(r.awsHistoryEvents).toBeLessThan(25_000);
    } finally {
      await s.close();
    }
  }, 600_000);
});
