import { type ActiveRuleSetApi, activeRuleSetHandler } from './receipt-rule-set.ts';

/**
 * Lambda entry of the rule set activation (lib/inbound.ts). Receipt rule sets exist only in the SES
 * v1 API, which pmail has no client of: the SDK v3 of the Lambda runtime provides
 * `@aws-sdk/client-ses` (found through NODE_PATH by the bundle's `require`), so a one-off custom
 * resource adds no dependency.
 */
interface SesV1 {
  SESClient: new (config: object) => { send(command: object): Promise<{ Metadata?: { Name?: string } }> };
  SetActiveReceiptRuleSetCommand: new (input: { RuleSetName?: string }) => object;
  DescribeActiveReceiptRuleSetCommand: new (input: object) => object;
}
// Named at run time, so the bundler leaves it to the runtime.
const sdk = require(['@aws-sdk', 'client-ses'].join('/')) as SesV1;
const client = new sdk.SESClient({});

const ses: ActiveRuleSetApi = {
  async active() {
    return (await client.send(new sdk.DescribeActiveReceiptRuleSetCommand({}))).Metadata?.Name;
  },
  async setActive(name) {
    await client.send(new sdk.SetActiveReceiptRuleSetCommand(name ? { RuleSetName: name } : {}));
  },
};

export const handler = activeRuleSetHandler(ses, async (url, body) => {
  const res = await fetch(url, { method: 'PUT', body, headers: { 'content-type': '' } });
  if (!res.ok) throw new Error(`CloudFormation refused the answer: ${res.status}`);
});
