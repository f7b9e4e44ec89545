import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import type { PostResult } from '../core/stream.ts';
import type { StreamConnections } from '../stream/connections.ts';

/**
 * The stream's gateway on AWS: API Gateway's Management API of the WebSocket API's stage
 * (`https://{api}.execute-api.{region}.amazonaws.com/{stage}`). PostToConnection answers 410 Gone
 * for a socket that is closed (or whose `$connect` has not finished) and 429 LimitExceeded when
 * the client's buffer is full or the account's rate is passed; API Gateway closes a socket
 * DeleteConnection names with a code of its own, so the last frame carries pmail's.
 */
export function apiGatewayConnections(
  endpoint: string,
  gateway: string,
  client = new ApiGatewayManagementApiClient({ endpoint }),
): StreamConnections {
  const post = async (connectionId: string, text: string): Promise<PostResult> => {
    try {
      await client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(text) }));
      return 'ok';
    } catch (err) {
      const name = (err as Error).name;
      if (name === 'GoneException') return 'gone';
      if (name === 'LimitExceededException') return 'throttled';
      throw err;
    }
  };
  return {
    gateway,
    post,
    close: async (connectionId, lastFrame) => {
      await post(connectionId, lastFrame).catch(() => undefined);
      try {
        await client.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
      } catch (err) {
        if ((err as Error).name !== 'GoneException') throw err;
      }
    },
  };
}
