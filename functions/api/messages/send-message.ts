import { submitRoute } from './submit.ts';

/** POST …/messages: a new email (body: sendBodySchema), in send.schema.ts. */
export const sendMessageRoute = submitRoute('send');
