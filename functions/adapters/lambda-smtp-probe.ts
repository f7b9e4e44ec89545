import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { RelayProbe } from '../core/domains.ts';
import type { SmtpProbe, SmtpProbeEvent } from '../domains/smtp-probe.ts';

/**
 * The AWS port: invoke the SMTP transport Lambda (`RequestResponse`, no SDK retries: a probe is
 * asked again by the next verify or check). A function error is thrown (the caller answers 503 or
 * counts the check as failed); the domain's state is not moved by it.
 */
export function invokeSmtpProbe(
  functionName: string,
  client = new LambdaClient({ maxAttempts: 1 }),
): SmtpProbe {
  return async (d, timeoutMs) => {
    const event: SmtpProbeEvent = { probe: { domain: d.domain, timeout_ms: timeoutMs } };
    const out = await client.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: 'RequestResponse',
        Payload: new TextEncoder().encode(JSON.stringify(event)),
      }),
    );
    const text = out.Payload ? new TextDecoder().decode(out.Payload) : '';
    if (out.FunctionError) throw new Error(`smtp probe failed in the transport: ${out.FunctionError}`);
    const parsed = JSON.parse(text) as RelayProbe;
    if (typeof parsed?.ok !== 'boolean') throw new Error('smtp probe answered no result');
    return parsed;
  };
}
