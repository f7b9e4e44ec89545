import { loadLambdaDeps, required } from '../env.ts';
import { streamRoutes } from './stream.api.ts';

/** Lambda entry of the WebSocket API's `$connect`, `$disconnect` and `$default` routes (lib/stream.ts). */
export const handler = streamRoutes(
  await loadLambdaDeps('stream-connect', {}),
  required('PMAIL_STREAM_GATEWAY'),
);
