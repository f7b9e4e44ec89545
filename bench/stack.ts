import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../functions/deps.ts';
import { type DynamoDbLocal, startDynamoDbLocal } from '../functions/local/dynamodb-local.ts';
import { startHttpServer } from '../functions/local/http-server.ts';
import { createLocalRuntime, type LocalRuntime } from '../functions/local/runtime.ts';
import { type SeededTenant, seedTestTenant } from '../functions/local/seed.ts';
import type { LocalStreamOptions } from '../functions/local/stream-gateway.ts';
import { adminClient } from '../functions/local/table.ts';
import { type Logger, silentLogger } from '../functions/log.ts';
import type { Dispatcher, SendAttemptInput } from '../functions/send/dispatcher.ts';
import { hooksOf } from '../functions/store/dynamodb.ts';
import { CapacityMeter } from './capacity.ts';

/**
 * The local stack the benchmarks drive: DynamoDB Local in memory, the local runtime (the ASL run
 * in-process, the in-process events queue, a temp blob folder) and the local HTTP server.
 *
 * Work is attributed to a stage for the capacity meter: the send-attempt executions and the
 * delivery-event consumer run in AsyncLocalStorage contexts `attempt` and `event` (set by thin
 * wrappers around the runtime's own dispatcher and event sink); everything else is counted under
 * the current phase (`submit`, `replay`, `baseline`…), which the bench sets.
 */
export interface BenchStack {
  runtime: LocalRuntime;
  /** DynamoDB Local's endpoint (a bench's own client for calls the table port does not carry). */
  endpoint: string;
  url: string;
  tenant: SeededTenant;
  meter: CapacityMeter;
  /** Count DynamoDB calls made outside an execution or the event consumer under this stage. */
  setPhase(stage: string): void;
  /**
   * Attribute executions and events to their own stages (on by default). Off while timing:
   * AsyncLocalStorage turns on promise hooks, a tax on every promise that falls on pmail's
   * promise-heavy path far more than on a bare put. Off, everything counts under the phase.
   */
  setAttribution(on: boolean): void;
  /**
   * While holding, started executions are queued instead of run; `release()` starts them (as the
   * runtime's dispatcher would have) and resolves once they and their events have settled.
   */
  holdExecutions(): { release(): Promise<void> };
  /** Errors and warnings the runtime logged (its logger is otherwise silent). */
  logged: { error: number; warn: number; last?: string };
  close(): Promise<void>;
}

export async function startBenchStack(opts: {
  identities: string[];
  /** Serve the event stream (its gateway behind the HTTP server), as `npm start` does. */
  stream?: LocalStreamOptions;
  /** Settings over the bench's own (a stream bench raises the per-tenant connection limit). */
  config?: Partial<Config>;
}): Promise<BenchStack> {
  const cleanup: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const step of cleanup.reverse()) {
      try {
        await step();
      } catch {
        // keep tearing down: the Java process must not outlive the bench
      }
    }
  };
  try {
    const stateDir = mkdtempSync(join(tmpdir(), 'pmail-bench-'));
    cleanup.push(() => rmSync(stateDir, { recursive: true, force: true }));
    onInterrupt(() => rmSync(stateDir, { recursive: true, force: true }));

    const ddb: DynamoDbLocal = await startDynamoDbLocal();
    cleanup.push(() => ddb.stop());
    onInterrupt(() => void ddb.stop());

    const logged: BenchStack['logged'] = { error: 0, warn: 0 };
    const log: Logger = {
      ...silentLogger,
      warn: (msg) => {
        logged.warn++;
        logged.last = msg;
      },
      error: (msg) => {
        logged.error++;
        logged.last = msg;
      },
    };
    const runtime = await createLocalRuntime({
      endpoint: ddb.endpoint,
      stateDir,
      log,
      // The simulator's default: its delivery event comes a second after the send (here 10 ms, the
      // queue's time scaled), after Record, as a provider's does, so the consumer does not race
      // Record for the message's version in every send.
      config: { simEventDelaySeconds: 1, ...opts.config },
      queueSecondsToMs: 10,
      ...(opts.stream ? { stream: opts.stream } : {}),
    });
    cleanup.push(() => runtime.close());

    const stage = new AsyncLocalStorage<string>();
    let phase = 'setup';
    // The probe reads item images for exact transaction accounting; it is not metered.
    const probe = adminClient({ table: runtime.deps.db.table, endpoint: ddb.endpoint });
    cleanup.push(() => probe.destroy());
    const meter = new CapacityMeter({ stageOf: () => stage.getStore() ?? phase, probe });
    meter.install(hooksOf(runtime.deps.db));

    // Tag the runtime's own background work; the objects doing it stay the runtime's.
    const dispatcher: Dispatcher = runtime.deps.dispatcher;
    const sink = runtime.deps.events;
    let attributing = true;
    const tagged = <T>(name: string, fn: () => T): T => (attributing ? stage.run(name, fn) : fn());
    let held: [string, SendAttemptInput][] | undefined;
    runtime.deps.dispatcher = {
      start: async (name, input, machine) => {
        // Scheduled sends and back-offs go to the Standard machine right away; only attempts wait.
        if (held && machine !== 'send') {
          held.push([name, input]);
          return;
        }
        return tagged('attempt', () => dispatcher.start(name, input, machine));
      },
      isRunning: dispatcher.isRunning?.bind(dispatcher),
    };
    runtime.deps.events = {
      publish: (events, delaySeconds) => tagged('event', () => sink.publish(events, delaySeconds)),
    };

    const tenant = await seedTestTenant(runtime.deps, { names: opts.identities });
    const http = await startHttpServer(runtime.groups, { port: 0, log, stream: runtime.stream });
    cleanup.push(() => http.close());

    return {
      runtime,
      endpoint: ddb.endpoint,
      url: http.url,
      tenant,
      meter,
      setPhase: (s) => {
        phase = s;
      },
      setAttribution: (on) => {
        attributing = on;
        // The last enabled AsyncLocalStorage disabled turns the promise hooks off (Node 20).
        if (!on) stage.disable();
      },
      holdExecutions: () => {
        const mine: [string, SendAttemptInput][] = [];
        held = mine;
        return {
          release: async () => {
            held = undefined;
            // In waves of 32, so the runtime's client (50 sockets) is not flooded by hundreds at once.
            for (let i = 0; i < mine.length; i += 32) {
              for (const [name, input] of mine.slice(i, i + 32))
                await tagged('attempt', () => dispatcher.start(name, input));
              await runtime.machine.idle();
            }
            await runtime.settle();
          },
        };
      },
      logged,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Ctrl-C: clean up synchronously and exit; functions/local/dynamodb-local.ts kills the Java process
 * on `exit` as well, so an interrupted bench leaves nothing running.
 */
const interruptSteps: (() => void)[] = [];
let hooked = false;
function onInterrupt(step: () => void) {
  interruptSteps.push(step);
  if (hooked) return;
  hooked = true;
  process.prependOnceListener('SIGINT', () => {
    for (const s of interruptSteps.reverse()) {
      try {
        s();
      } catch {
        // best effort
      }
    }
    process.stderr.write('\nbench interrupted: DynamoDB Local stopped, temp state removed\n');
    process.exit(130);
  });
}
