/**
 * The custom resource that makes pmail's receipt rule set the active one (lib/inbound.ts): SES has
 * one active set per Region and no CloudFormation resource activates one. Create/Update activate
 * the set; Delete deactivates only while the active set is still pmail's, so a set someone
 * activated since stays active. The answer goes to CloudFormation's presigned ResponseURL.
 */
export interface RuleSetEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  ResourceProperties: { RuleSetName: string };
}

/** The two SES (v1) calls this needs. */
export interface ActiveRuleSetApi {
  /** The name of the Region's active rule set, or undefined when none is active. */
  active(): Promise<string | undefined>;
  /** Activate `name`; undefined deactivates whichever set is active. */
  setActive(name: string | undefined): Promise<void>;
}

export type Respond = (url: string, body: string) => Promise<void>;

export function activeRuleSetHandler(ses: ActiveRuleSetApi, respond: Respond) {
  return async (event: RuleSetEvent): Promise<void> => {
    const name = event.ResourceProperties.RuleSetName;
    const answer = (Status: 'SUCCESS' | 'FAILED', Reason: string) =>
      respond(
        event.ResponseURL,
        JSON.stringify({
          Status,
          Reason,
          PhysicalResourceId: `active-receipt-rule-set:${name}`,
          StackId: event.StackId,
          RequestId: event.RequestId,
          LogicalResourceId: event.LogicalResourceId,
        }),
      );
    try {
      if (event.RequestType === 'Delete') {
        if ((await ses.active()) === name) await ses.setActive(undefined);
      } else {
        await ses.setActive(name);
      }
      await answer('SUCCESS', 'done');
    } catch (err) {
      await answer('FAILED', String((err as Error)?.message ?? err).slice(0, 200));
    }
  };
}
