import type { DeliveryEventKind } from './deliveries.ts';
import type { TransportResult } from './transport-result.ts';

/** Simulator scripts: the local part of a @simulator.invalid recipient picks the script. */
export const SIMULATOR_DOMAIN = 'simulator.invalid';

export type SimulatorScript =
  | 'delivered'
  | 'bounce'
  | 'softbounce'
  | 'complaint'
  | 'deferred'
  | 'reject'
  | 'timeout'
  | 'ratelimit'
  /** Test only: refuses with RateLimit on every attempt, so a back-off runs to its 24-hour end. */
  | 'ratelimit-always';

const SCRIPTS = new Set<SimulatorScript>([
  'delivered',
  'bounce',
  'softbounce',
  'complaint',
  'deferred',
  'reject',
  'timeout',
  'ratelimit',
  'ratelimit-always',
]);

export function isSimulatorAddress(address: string): boolean {
  return address.toLowerCase().endsWith(`@${SIMULATOR_DOMAIN}`);
}

/** `bounce+42@simulator.invalid` bounces: a `+label` suffix is ignored; unknown local parts deliver. */
export function simulatorScript(address: string): SimulatorScript {
  const local = address.toLowerCase().split('@')[0].split('+')[0];
  return SCRIPTS.has(local as SimulatorScript) ? (local as SimulatorScript) : 'delivered';
}

export interface ScriptedEvent {
  recipient: string;
  kind: DeliveryEventKind;
  bounce_type?: 'hard' | 'soft';
  smtp_code?: string;
  enhanced_code?: string;
  smtp_response?: string;
  /** order within the recipient's script; also the n of the event id */
  n: number;
}

const EVENTS: Record<SimulatorScript, Omit<ScriptedEvent, 'recipient'>[]> = {
  delivered: [
    { n: 1, kind: 'delivered', smtp_code: '250', enhanced_code: '2.0.0', smtp_response: '250 2.0.0 OK' },
  ],
  'ratelimit-always': [],
  ratelimit: [
    { n: 1, kind: 'delivered', smtp_code: '250', enhanced_code: '2.0.0', smtp_response: '250 2.0.0 OK' },
  ],
  bounce: [
    {
      n: 1,
      kind: 'bounced',
      bounce_type: 'hard',
      smtp_code: '550',
      enhanced_code: '5.1.1',
      smtp_response: '550 5.1.1 simulated: user unknown',
    },
  ],
  softbounce: [
    {
      n: 1,
      kind: 'deferred',
      smtp_code: '451',
      enhanced_code: '4.2.0',
      smtp_response: '451 4.2.0 simulated: try later',
    },
    {
      n: 2,
      kind: 'bounced',
      bounce_type: 'soft',
      smtp_code: '451',
      enhanced_code: '4.2.0',
      smtp_response: '451 4.2.0 simulated: gave up',
    },
  ],
  complaint: [
    { n: 1, kind: 'delivered', smtp_code: '250', enhanced_code: '2.0.0', smtp_response: '250 2.0.0 OK' },
    { n: 2, kind: 'complained' },
  ],
  deferred: [
    {
      n: 1,
      kind: 'deferred',
      smtp_code: '451',
      enhanced_code: '4.2.0',
      smtp_response: '451 4.2.0 simulated: try later',
    },
  ],
  reject: [],
  timeout: [],
};

export interface SimulatorOutcome {
  result: TransportResult;
  events: ScriptedEvent[];
}

/**
 * Several simulator recipients: any `reject` → the whole message is rejected; else any `timeout` →
 * unknown; else (pmail's `ratelimit`, first attempt only, and `ratelimit-always`) retry later; else accepted with each
 * recipient's scripted events.
 */
export function simulate(recipients: string[], providerMessageId: string, attempt: number): SimulatorOutcome {
  const scripts = recipients.map((r) => [r, simulatorScript(r)] as const);
  const has = (s: SimulatorScript) => scripts.some(([, x]) => x === s);
  if (has('reject')) {
    return {
      result: {
        type: 'rejected',
        provider: 'simulator',
        reason: 'provider_validation',
        code: 'E_SIMULATED_REJECT',
        detail: 'simulated rejection',
      },
      events: [],
    };
  }
  if (has('timeout')) {
    return {
      result: {
        type: 'unknown',
        provider: 'simulator',
        reason: 'transport_timeout',
        detail: 'simulated timeout',
      },
      events: [],
    };
  }
  if (has('ratelimit-always') || (has('ratelimit') && attempt === 1)) {
    return {
      result: {
        type: 'retry_later',
        provider: 'simulator',
        class: 'RateLimit',
        code: 'E_RATE_LIMIT_EXCEEDED',
        refused: [],
      },
      events: [],
    };
  }
  return {
    result: {
      type: 'accepted',
      provider: 'simulator',
      provider_message_id: providerMessageId,
      refused: [],
      deferred: [],
    },
    events: scripts.flatMap(([recipient, script]) => EVENTS[script].map((e) => ({ ...e, recipient }))),
  };
}
