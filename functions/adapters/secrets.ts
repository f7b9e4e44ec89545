import awsLite from '@aws-lite/client';

/**
 * One secret's string from AWS Secrets Manager: GetSecretValue over its JSON protocol, signed and
 * sent by `@aws-lite/client` (the client the table uses, store/dynamodb.ts), so a Lambda that reads
 * only its keys secret at a cold start carries no AWS SDK client for it. The library's own retries
 * stand: the read changes nothing. `AWS_ENDPOINT_URL_SECRETS_MANAGER` points it elsewhere (the
 * tests' stand-in); on AWS the Region's endpoint and the function's role are used.
 */
export async function readSecretString(secretId: string): Promise<string | undefined> {
  const endpoint = process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
  const aws = await awsLite({
    region: process.env.AWS_REGION ?? 'us-east-1',
    ...(endpoint ? { endpoint } : {}),
    autoloadPlugins: false,
    plugins: [],
    retries: 3,
    responseContentType: 'application/json',
  });
  const out = await aws({
    service: 'secretsmanager',
    method: 'POST',
    path: '/',
    headers: {
      'X-Amz-Target': 'secretsmanager.GetSecretValue',
      'content-type': 'application/x-amz-json-1.1',
    },
    body: JSON.stringify({ SecretId: secretId }),
  });
  return (out.payload as { SecretString?: string } | undefined)?.SecretString;
}
