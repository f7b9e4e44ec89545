import { CliError, EXIT } from './client.ts';

/**
 * An AWS SDK error (`admin bootstrap`, `doctor --aws`) as a CliError that says what to do, with the
 * exit code of docs/guides/cli.md › Exit codes: missing configuration 3, refused access 4,
 * unreachable 9. Anything else passes through unchanged.
 */
export function awsHint(e: unknown): CliError | Error {
  if (e instanceof CliError) return e;
  const x = e as Error & { name?: string; $metadata?: unknown; code?: string };
  const text = `${x?.name ?? ''} ${x?.message ?? String(e)}`;
  for (const [pattern, exit, hint] of AWS_HINTS)
    if (pattern.test(text)) return new CliError(exit, `${x.message}: ${hint}`);
  if (x?.$metadata !== undefined || /ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN/.test(text))
    return new CliError(EXIT.unavailable, `AWS unreachable: ${x.message}`);
  return x instanceof Error ? x : new Error(String(e));
}

/** Known AWS failures, each with what fixes it. */
const AWS_HINTS: [RegExp, number, string][] = [
  [/Region is missing/i, EXIT.config, 'set AWS_REGION or pass --region'],
  [
    /Could not load credentials|CredentialsProviderError|Unable to find AWS credentials/i,
    EXIT.config,
    'set AWS_PROFILE (after `aws configure` or `aws sso login`), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
  ],
  [/ExpiredToken|token.*expired/i, EXIT.config, 'renew your AWS credentials (`aws sso login`)'],
  [/UnrecognizedClient|InvalidClientTokenId|InvalidSignature/i, EXIT.auth, 'check your AWS credentials'],
  [/AccessDenied|not authorized/i, EXIT.auth, 'your AWS credentials lack this permission'],
  [
    /Stack with id .* does not exist/i,
    EXIT.config,
    'deploy the stack first, or pass its --stack and --region',
  ],
  [/ResourceNotFoundException|Requested resource not found/i, EXIT.config, 'check --table and --region'],
];
