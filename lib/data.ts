import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IConstruct } from 'constructs';

/** Sparse GSI: provider message id → message (event routing). */
export const GSI1 = { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' } as const;
/**
 * Sparse GSI shared by two exclusive states: queued messages by dispatch time for the
 * sweeper (`DQ#{shard}`), and uncertain messages without a provider id by identity for
 * reconciliation (`U#{idn}`). A message is never both, so one index serves both.
 */
export const GSI2 = { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' } as const;

/**
 * The table's item-level actions: those of the `Db` port (store/db.ts), a transaction's items
 * included; no Scan (single-table access is by key or index query), no BatchWriteItem (the port has
 * none).
 */
const TABLE_READ_WRITE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
];

/** Blob object actions (the composed RFC 822 sources); no delete, no ACL or tagging changes. */
// DeleteObject: a refused send removes the .eml it wrote before its transaction.
const BLOB_OBJECT_ACTIONS = ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'];

export interface PmailDataProps {
  /**
   * What happens to the table and the bucket when they leave the stack. Both hold customer mail
   * state, so they stay by default.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/** The single DynamoDB table (docs/architecture.md › Items and their keys) and the outbound blob bucket. */
export class PmailData extends Construct {
  readonly table: Table;
  readonly bucket: Bucket;
  /** PM_HASH_KEY (suppression hashes, thread tokens) and the signed-link keys: functions/env.ts. */
  readonly keys: Secret;

  constructor(scope: Construct, id: string, props: PmailDataProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    this.table = new Table(this, 'Table', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      // DynamoDB TTL expires idempotency items and rate-limit windows.
      timeToLiveAttribute: 'ttl',
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy,
      // Outbox inserts reach the webhook fan-out through the stream (lib/webhooks.ts).
      stream: StreamViewType.NEW_IMAGE,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: GSI1.indexName,
      partitionKey: { name: GSI1.partitionKey, type: AttributeType.STRING },
      sortKey: { name: GSI1.sortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.KEYS_ONLY,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: GSI2.indexName,
      partitionKey: { name: GSI2.partitionKey, type: AttributeType.STRING },
      sortKey: { name: GSI2.sortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.KEYS_ONLY,
    });

    this.bucket = new Bucket(this, 'Blobs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      versioned: false,
      removalPolicy,
      // Parts of an upload that never completed are invisible and billed: gone after a day.
      lifecycleRules: [
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only pmail roles read or write blobs; an access-log bucket would have no reader. CloudTrail S3 data events are the audit trail an operator can turn on.',
    });

    this.keys = new Secret(this, 'Keys', {
      description: 'pmail hash key (suppressions, thread tokens) and signed-link keys',
      generateSecretString: {
        secretStringTemplate: '{}',
        generateStringKey: 'hash_key',
        excludePunctuation: true,
        passwordLength: 64,
      },
      removalPolicy,
    });
    Validations.of(this.keys).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The hash key must stay stable: suppressions are stored under HMACs of it, so rotating it would forget every suppression. Link keys rotate by adding a kid (link_keys) by hand.',
    });
  }

  /** GetSecretValue of the keys secret, read once per container (functions/env.ts › loadKeys): nothing else. */
  grantKeysRead(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.keys.secretArn] }),
    );
  }

  /** Item-level read/write on the table and its indexes (named, not `index/*`). */
  grantTableReadWrite(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: TABLE_READ_WRITE_ACTIONS,
        resources: [
          this.table.tableArn,
          `${this.table.tableArn}/index/${GSI1.indexName}`,
          `${this.table.tableArn}/index/${GSI2.indexName}`,
        ],
      }),
    );
  }

  /** Only these item-level actions on the table (no index): for functions that need few. */
  grantTableItems(grantee: IGrantable, actions: string[]): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: actions.map((a) => `dynamodb:${a}`), resources: [this.table.tableArn] }),
    );
  }

  /** Read-only access to the stored outbound copies (`t/{ten}/i/{idn}/out/{msg}.eml`): relay transports. */
  grantOutboundRead(grantee: IGrantable & IConstruct): void {
    const keys = 't/*/i/*/out/*';
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects(keys)] }),
    );
    const bucketId = Stack.of(this).resolve((this.bucket.node.defaultChild as CfnBucket).logicalId);
    Validations.of(grantee).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${keys}]`,
      reason: 'The transport reads the stored copy of the message it sends: any outbound key, read-only.',
    });
  }

  /**
   * List the bucket and delete outbound objects (`t/{ten}/i/{idn}/out/…`), nothing else: the daily
   * orphan pass (functions/sweeper/orphans.ts).
   */
  grantOutboundListDelete(grantee: IGrantable & IConstruct): void {
    const keys = 't/*/i/*/out/*';
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:DeleteObject'], resources: [this.bucket.arnForObjects(keys)] }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
    );
    const bucketId = Stack.of(this).resolve((this.bucket.node.defaultChild as CfnBucket).logicalId);
    Validations.of(grantee).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${keys}]`,
      reason:
        'The orphan pass deletes the outbound objects of messages that were never committed: any tenant, identity and message, delete only.',
    });
  }

  /** Get of blob objects only (a transport reading the stored .eml), and ListBucket for NoSuchKey. */
  grantBlobRead(grantee: IGrantable & IConstruct): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects('*')] }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
    );
    const bucketId = Stack.of(this).resolve((this.bucket.node.defaultChild as CfnBucket).logicalId);
    Validations.of(grantee).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
      reason:
        'The stored copies are per tenant, identity and message (t/{ten}/i/{idn}/out/{msg}.eml): any key of the blob bucket.',
    });
  }

  /** Get/put of blob objects, and ListBucket so that a missing key reads as NoSuchKey. */
  grantBlobReadWrite(grantee: IGrantable & IConstruct): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: BLOB_OBJECT_ACTIONS, resources: [this.bucket.arnForObjects('*')] }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
    );
    const bucketId = Stack.of(this).resolve((this.bucket.node.defaultChild as CfnBucket).logicalId);
    Validations.of(grantee).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
      reason:
        'Object keys are per tenant, identity and message (t/{ten}/i/{idn}/out/{msg}.eml): any key of the blob bucket.',
    });
  }
}
