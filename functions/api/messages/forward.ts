import { submitRoute } from './submit.ts';

/** POST …/messages/{id}/forward: the message and its attachments to new recipients (body: forwardBodySchema), in send.schema.ts. */
export const forwardMessageRoute = submitRoute('forward');
