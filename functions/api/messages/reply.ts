import { submitRoute } from './submit.ts';

/** POST …/messages/{id}/reply: a reply to the sender (body: replyBodySchema), in send.schema.ts. */
export const replyMessageRoute = submitRoute('reply');
