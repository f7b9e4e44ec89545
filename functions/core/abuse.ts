import type { AbuseOutcome } from './deliveries.ts';

/**
 * Abuse auto-pause: the last 1,000 outcomes of an identity, complaints over
 * the 1,000 window and bounces over the last 200, against the policy rates with the window sizes
 * as denominators — a young identity is judged against a full window. The window is one compact
 * string, a character per outcome (d delivered, b bounced, c complained, o other).
 */
export const COMPLAINT_WINDOW = 1000;
export const BOUNCE_WINDOW = 200;
export const DEFAULT_COMPLAINT_RATE_PAUSE = 0.003;
export const DEFAULT_BOUNCE_RATE_PAUSE = 0.05;

const CODE: Record<AbuseOutcome, string> = { delivered: 'd', bounced: 'b', complained: 'c', other: 'o' };

export function pushOutcome(window: string, outcome: AbuseOutcome): string {
  return (window + CODE[outcome]).slice(-COMPLAINT_WINDOW);
}

/**
 * Whether recording `outcome` can change what the window says. A neutral outcome (delivered,
 * other) pushed into a window without complaints or bounces leaves every count at zero, and once
 * one arrives every later outcome is recorded again, so it ages out after exactly as many
 * outcomes as it would have: a healthy identity's deliveries cost no write (the cost target).
 */
export function outcomeMatters(window: string, outcome: AbuseOutcome): boolean {
  if (outcome === 'complained' || outcome === 'bounced') return true;
  return window.includes('c') || window.includes('b');
}

export interface AbuseMetrics {
  complaints: number;
  complaint_window: number;
  bounces: number;
  bounce_window: number;
}

export function evaluateAbuse(
  window: string,
  policy: { complaint_rate_pause?: number; bounce_rate_pause?: number } = {},
): { pause: boolean; metrics: AbuseMetrics } {
  const count = (s: string, c: string) => s.split(c).length - 1;
  const complaints = count(window.slice(-COMPLAINT_WINDOW), 'c');
  const bounces = count(window.slice(-BOUNCE_WINDOW), 'b');
  const pause =
    complaints / COMPLAINT_WINDOW > (policy.complaint_rate_pause ?? DEFAULT_COMPLAINT_RATE_PAUSE) ||
    bounces / BOUNCE_WINDOW > (policy.bounce_rate_pause ?? DEFAULT_BOUNCE_RATE_PAUSE);
  return {
    pause,
    metrics: { complaints, complaint_window: COMPLAINT_WINDOW, bounces, bounce_window: BOUNCE_WINDOW },
  };
}
