import { loadLambdaDeps } from '../env.ts';
import { streamAuthorizer } from './stream.api.ts';

/** Lambda entry of the WebSocket API's `$connect` authorizer (lib/stream.ts). */
export const handler = streamAuthorizer(await loadLambdaDeps('stream-authorizer', {}));
