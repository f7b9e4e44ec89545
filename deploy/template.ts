import { createHash } from 'node:crypto';

/**
 * A synthesized CloudFormation template with every intrinsic resolved to the string AWS would make
 * of it in one made-up account and Region (the IAM simulator needs plain ARNs). Physical names a
 * template leaves to CloudFormation are made from the logical id, as CloudFormation does.
 */

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  DependsOn?: string | string[];
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown }>;
}

export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';

export class ResolvedTemplate {
  readonly resources: Record<string, CfnResource>;

  constructor(
    readonly template: CfnTemplate,
    readonly stackName = 'Pmail',
    readonly region = REGION,
    readonly account = ACCOUNT,
  ) {
    this.resources = template.Resources;
  }

  ofType(type: string): [string, CfnResource][] {
    return Object.entries(this.resources).filter(([, r]) => r.Type === type);
  }

  prop(id: string, name: string): unknown {
    return this.resources[id]?.Properties?.[name];
  }

  /** `value` with every intrinsic function replaced by its string (or list) value. */
  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value === null || typeof value !== 'object') return value;
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1) {
      const [k] = keys;
      const arg = o[k];
      if (k === 'Ref') return this.ref(String(arg));
      if (k === 'Fn::GetAtt') {
        const [id, attr] = Array.isArray(arg) ? arg : String(arg).split(/\.(.*)/);
        return this.getAtt(String(id), String(attr));
      }
      if (k === 'Fn::Join') {
        const [sep, parts] = arg as [string, unknown[]];
        return (this.resolve(parts) as unknown[]).flat().join(sep);
      }
      if (k === 'Fn::Sub') return this.sub(arg);
      if (k === 'Fn::Select') {
        const [i, list] = arg as [unknown, unknown];
        return (this.resolve(list) as unknown[])[Number(this.resolve(i))];
      }
      if (k === 'Fn::Split') {
        const [sep, s] = arg as [string, unknown];
        return String(this.resolve(s)).split(sep);
      }
      if (k === 'Fn::GetAZs') return [`${this.region}a`, `${this.region}b`];
    }
    return Object.fromEntries(keys.map((key) => [key, this.resolve(o[key])]));
  }

  /** A string value; throws on anything else (a reference the template cannot resolve). */
  str(value: unknown): string {
    const v = this.resolve(value);
    if (typeof v !== 'string') throw new Error(`not a string: ${JSON.stringify(value)}`);
    return v;
  }

  private sub(arg: unknown): string {
    const [text, vars] = Array.isArray(arg) ? (arg as [string, Record<string, unknown>]) : [String(arg), {}];
    return text.replace(/\$\{([^}!]+)\}/g, (_m, name: string) => {
      if (name in vars) return String(this.resolve(vars[name]));
      const dot = name.indexOf('.');
      return String(dot > 0 ? this.getAtt(name.slice(0, dot), name.slice(dot + 1)) : this.ref(name));
    });
  }

  private pseudo(name: string): string | undefined {
    return {
      'AWS::Region': this.region,
      'AWS::AccountId': this.account,
      'AWS::Partition': 'aws',
      'AWS::StackName': this.stackName,
      'AWS::StackId': `arn:aws:cloudformation:${this.region}:${this.account}:stack/${this.stackName}/00000000-0000-0000-0000-000000000000`,
      'AWS::URLSuffix': 'amazonaws.com',
    }[name];
  }

  /** The name CloudFormation gives a resource whose template names none: stack, logical id, a suffix. */
  private generated(id: string, max = 64): string {
    const suffix = createHash('sha256').update(id).digest('hex').slice(0, 12).toUpperCase();
    return `${this.stackName}-${id}`.slice(0, max - 13) + `-${suffix}`;
  }

  private nameOf(id: string): string {
    const r = this.resources[id];
    const p = r.Properties ?? {};
    const given = (key: string) => (p[key] === undefined ? undefined : this.str(p[key]));
    switch (r.Type) {
      case 'AWS::DynamoDB::Table':
        return given('TableName') ?? this.generated(id);
      case 'AWS::S3::Bucket':
        return given('BucketName') ?? this.generated(id).toLowerCase();
      case 'AWS::SQS::Queue':
        return given('QueueName') ?? this.generated(id, 80);
      case 'AWS::SNS::Topic':
        return given('TopicName') ?? this.generated(id);
      case 'AWS::Lambda::Function':
        return given('FunctionName') ?? this.generated(id);
      case 'AWS::IAM::Role':
        return given('RoleName') ?? this.generated(id);
      case 'AWS::Logs::LogGroup':
        return given('LogGroupName') ?? this.generated(id, 512);
      case 'AWS::StepFunctions::StateMachine':
        return given('StateMachineName') ?? this.generated(id, 80);
      case 'AWS::SecretsManager::Secret':
        return given('Name') ?? this.generated(id);
      case 'AWS::SES::ConfigurationSet':
        return given('Name') ?? this.generated(id);
      case 'AWS::SES::ReceiptRuleSet':
        return given('RuleSetName') ?? this.generated(id);
      case 'AWS::Events::Rule':
        return given('Name') ?? this.generated(id);
      case 'AWS::CloudWatch::Alarm':
        return given('AlarmName') ?? this.generated(id);
      case 'AWS::CloudWatch::Dashboard':
        return given('DashboardName') ?? this.generated(id);
      default:
        return id;
    }
  }

  /** The id CloudFormation would give (keys, APIs): lower-case letters from the logical id. */
  private physicalId(id: string, length: number): string {
    return createHash('sha256').update(id).digest('hex').slice(0, length);
  }

  private arnOf(id: string): string {
    const r = this.resources[id];
    const name = this.nameOf(id);
    const at = `${this.region}:${this.account}`;
    switch (r.Type) {
      case 'AWS::DynamoDB::Table':
        return `arn:aws:dynamodb:${at}:table/${name}`;
      case 'AWS::S3::Bucket':
        return `arn:aws:s3:::${name}`;
      case 'AWS::SQS::Queue':
        return `arn:aws:sqs:${at}:${name}`;
      case 'AWS::SNS::Topic':
        return `arn:aws:sns:${at}:${name}`;
      case 'AWS::Lambda::Function':
        return `arn:aws:lambda:${at}:function:${name}`;
      case 'AWS::IAM::Role':
        return `arn:aws:iam::${this.account}:role/${name}`;
      case 'AWS::Logs::LogGroup':
        return `arn:aws:logs:${at}:log-group:${name}:*`;
      case 'AWS::StepFunctions::StateMachine':
        return `arn:aws:states:${at}:stateMachine:${name}`;
      case 'AWS::SecretsManager::Secret':
        return `arn:aws:secretsmanager:${at}:secret:${name}-AbCdEf`;
      case 'AWS::KMS::Key':
        return `arn:aws:kms:${at}:key/${this.physicalId(id, 32)}`;
      case 'AWS::Events::Rule':
        return `arn:aws:events:${at}:rule/${name}`;
      case 'AWS::SES::ConfigurationSet':
        return `arn:aws:ses:${at}:configuration-set/${name}`;
      default:
        throw new Error(`no ARN known for ${r.Type} (${id})`);
    }
  }

  ref(name: string): string {
    const p = this.pseudo(name);
    if (p !== undefined) return p;
    const r = this.resources[name];
    if (!r) throw new Error(`Ref to ${name}, which the template does not define`);
    switch (r.Type) {
      case 'AWS::SQS::Queue':
        return `https://sqs.${this.region}.amazonaws.com/${this.account}/${this.nameOf(name)}`;
      case 'AWS::SNS::Topic':
      case 'AWS::SecretsManager::Secret':
      case 'AWS::StepFunctions::StateMachine':
        return this.arnOf(name);
      case 'AWS::KMS::Key':
        return this.physicalId(name, 32);
      case 'AWS::ApiGatewayV2::Api':
        return this.physicalId(name, 10);
      default:
        return this.nameOf(name);
    }
  }

  getAtt(id: string, attr: string): string {
    const r = this.resources[id];
    if (!r) throw new Error(`Fn::GetAtt of ${id}, which the template does not define`);
    if (attr === 'Arn') return this.arnOf(id);
    if (r.Type === 'AWS::DynamoDB::Table' && attr === 'StreamArn')
      return `${this.arnOf(id)}/stream/2026-01-01T00:00:00.000`;
    if (r.Type === 'AWS::SQS::Queue' && attr === 'QueueName') return this.nameOf(id);
    if (r.Type === 'AWS::SQS::Queue' && attr === 'QueueUrl') return this.ref(id);
    if (r.Type === 'AWS::SNS::Topic' && attr === 'TopicName') return this.nameOf(id);
    if (r.Type === 'AWS::SNS::Topic' && attr === 'TopicArn') return this.arnOf(id);
    if (r.Type === 'AWS::StepFunctions::StateMachine' && attr === 'Name') return this.nameOf(id);
    if (r.Type === 'AWS::ApiGatewayV2::Api' && attr === 'ApiEndpoint')
      return `https://${this.ref(id)}.execute-api.${this.region}.amazonaws.com`;
    if (r.Type === 'AWS::ApiGatewayV2::Api' && attr === 'ApiId') return this.ref(id);
    if (r.Type === 'AWS::S3::Bucket' && attr === 'RegionalDomainName')
      return `${this.nameOf(id)}.s3.${this.region}.amazonaws.com`;
    if (r.Type === 'AWS::Lambda::Function' && attr === 'FunctionName') return this.nameOf(id);
    throw new Error(`Fn::GetAtt ${id}.${attr}: not an attribute the check knows of ${r.Type}`);
  }

  /** The logical id of the resource an intrinsic names (`Ref` or `Fn::GetAtt`), if it names one. */
  static target(value: unknown): string | undefined {
    if (value === null || typeof value !== 'object') return undefined;
    const o = value as Record<string, unknown>;
    if (typeof o.Ref === 'string') return o.Ref;
    const att = o['Fn::GetAtt'];
    if (Array.isArray(att)) return String(att[0]);
    if (typeof att === 'string') return att.split('.')[0];
    return undefined;
  }
}
