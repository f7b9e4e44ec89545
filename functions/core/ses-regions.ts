/**
 * The Regions where SES receives email: AWS General Reference, "Amazon Simple Email Service
 * endpoints and quotas" › Email receiving (https://docs.aws.amazon.com/general/latest/gr/ses.html),
 * the same Regions where CloudFormation offers AWS::SES::ReceiptRule. The MX host of each is
 * `inbound-smtp.{region}.amazonaws.com`.
 */
export const SES_RECEIVING_REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'af-south-1',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-northeast-3',
  'ap-south-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-southeast-3',
  'ca-central-1',
  'eu-central-1',
  'eu-north-1',
  'eu-south-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'il-central-1',
  'me-south-1',
  'sa-east-1',
] as const;
