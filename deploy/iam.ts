import type { AwsRequest } from './replay.ts';
import type { ResolvedTemplate } from './template.ts';

/**
 * What IAM authorises for one AWS request: each action on each resource, from the Service
 * Authorization Reference (https://docs.aws.amazon.com/service-authorization/latest/reference/),
 * where an operation's action differs from its name or a request needs several. A request of an
 * operation not known here is a finding of the check, so a new kind of call is looked at once.
 */

export interface IamRequest {
  action: string;
  resource: string;
  context?: Record<string, string>;
}

const S3_ACTIONS: Record<string, string> = {
  PutObject: 's3:PutObject',
  GetObject: 's3:GetObject',
  HeadObject: 's3:GetObject',
  DeleteObject: 's3:DeleteObject',
};

/** DynamoDB: TransactWriteItems is authorised per item by the item's own action. */
const TRANSACT_ACTIONS: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
};

const DYNAMODB_OPERATIONS = new Set([
  'GetItem',
  'BatchGetItem',
  'Query',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
]);

const SFN_ARNS: Record<string, string> = {
  StartExecution: 'stateMachineArn',
  DescribeStateMachine: 'stateMachineArn',
  DescribeExecution: 'executionArn',
  StopExecution: 'executionArn',
};

const SES_IDENTITY_OPERATIONS = new Set([
  'CreateEmailIdentity',
  'GetEmailIdentity',
  'DeleteEmailIdentity',
  'PutEmailIdentityMailFromAttributes',
  'PutEmailIdentityDkimAttributes',
]);

const SECRET_OPERATIONS = new Set([
  'GetSecretValue',
  'PutSecretValue',
  'CreateSecret',
  'DeleteSecret',
  'DescribeSecret',
]);

export function queueArn(url: string): string {
  const m = /^https:\/\/sqs\.([^.]+)\.[^/]+\/(\d+)\/(.+)$/.exec(url);
  if (!m) throw new Error(`not a queue URL: ${url}`);
  return `arn:aws:sqs:${m[1]}:${m[2]}:${m[3]}`;
}

export function iamRequests(r: AwsRequest, t: ResolvedTemplate): IamRequest[] {
  const at = `${t.region}:${t.account}`;
  const i = r.input;
  const s = (k: string) => String(i[k]);
  switch (r.service) {
    case 'dynamodb': {
      const table = `arn:aws:dynamodb:${at}:table/${s('TableName')}`;
      if (r.operation === 'TransactWriteItems')
        return ((i.kinds as string[]) ?? []).map((k) => ({ action: TRANSACT_ACTIONS[k], resource: table }));
      if (!DYNAMODB_OPERATIONS.has(r.operation)) break;
      const resource = i.IndexName ? `${table}/index/${s('IndexName')}` : table;
      return [{ action: `dynamodb:${r.operation}`, resource }];
    }
    case 's3': {
      const bucket = `arn:aws:s3:::${s('Bucket')}`;
      if (r.operation === 'ListObjectsV2')
        return [
          { action: 's3:ListBucket', resource: bucket, context: { 's3:prefix': String(i.Prefix ?? '') } },
        ];
      const action = S3_ACTIONS[r.operation];
      if (action) return [{ action, resource: `${bucket}/${s('Key')}` }];
      break;
    }
    case 'sqs':
      // SendMessageBatch and ChangeMessageVisibilityBatch are authorised by the single-message action.
      if (/^SendMessage(Batch)?$/.test(r.operation))
        return [{ action: 'sqs:SendMessage', resource: queueArn(s('QueueUrl')) }];
      if (/^ChangeMessageVisibility(Batch)?$/.test(r.operation))
        return [{ action: 'sqs:ChangeMessageVisibility', resource: queueArn(s('QueueUrl')) }];
      break;
    case 'states': {
      const key = SFN_ARNS[r.operation];
      if (key) return [{ action: `states:${r.operation}`, resource: s(key) }];
      break;
    }
    case 'sesv2': {
      const at = `${r.region ?? t.region}:${t.account}`;
      const configurationSet = i.ConfigurationSetName
        ? [`arn:aws:ses:${at}:configuration-set/${s('ConfigurationSetName')}`]
        : [];
      if (SES_IDENTITY_OPERATIONS.has(r.operation)) {
        const resources = [`arn:aws:ses:${at}:identity/${s('EmailIdentity')}`];
        // CreateEmailIdentity with a configuration set is authorised on the set too.
        if (r.operation === 'CreateEmailIdentity') resources.push(...configurationSet);
        return resources.map((resource) => ({ action: `ses:${r.operation}`, resource }));
      }
      if (r.operation === 'SendEmail') {
        // Sending is authorised on the identity of the From address (its domain for pmail's
        // domains) and on the configuration set named.
        const domain = s('FromEmailAddress').split('@').pop();
        return [`arn:aws:ses:${at}:identity/${domain}`, ...configurationSet].map((resource) => ({
          action: 'ses:SendEmail',
          resource,
        }));
      }
      break;
    }
    case 'lambda':
      if (r.operation === 'Invoke') {
        const name = s('FunctionName');
        const resource = name.startsWith('arn:') ? name : `arn:aws:lambda:${at}:function:${name}`;
        return [{ action: 'lambda:InvokeFunction', resource }];
      }
      break;
    case 'secretsmanager':
      if (SECRET_OPERATIONS.has(r.operation)) {
        const id = String(i.SecretId ?? i.Name);
        // A secret's ARN ends in six characters Secrets Manager adds to its name.
        const resource = id.startsWith('arn:') ? id : `arn:aws:secretsmanager:${at}:secret:${id}-AbCdEf`;
        return [{ action: `secretsmanager:${r.operation}`, resource }];
      }
      break;
  }
  throw new Error(`no IAM mapping for ${r.service} ${r.operation} in deploy/iam.ts`);
}
