/**
 * What the console's bundle gives for `node:crypto`, which @pmail/client imports for webhook
 * verification alone (an HMAC a server checks): the console never verifies a webhook, so a call
 * here is a mistake and says so.
 */
const serverOnly = (): never => {
  throw new Error('Webhook verification runs on a server, not in the console.');
};
export const createHmac = serverOnly;
export const timingSafeEqual = serverOnly;
