import { submitRoute } from './submit.ts';

/** POST …/messages/{id}/reply-all: a reply to everyone on the message (body: replyBodySchema), in send.schema.ts. */
export const replyAllMessageRoute = submitRoute('reply_all');
