import type { PostResult } from '../core/stream.ts';

/**
 * The gateway that holds the streams' sockets, as the fan-out uses it: API Gateway's Management
 * API on AWS (functions/adapters/api-gateway-connections.ts), the local server's `ws` sockets on
 * `npm start` (functions/local/stream-gateway.ts). Only the fan-out is given it.
 */
export interface StreamConnections {
  /** The gateway's name: a fan-out posts only to the connections recorded on its own gateway. */
  readonly gateway: string;
  /**
   * Post one text frame: `ok`; `gone` (no such socket); `slow` (the client has left more unread than
   * the gateway holds); `throttled` (the gateway refused for now).
   */
  post(connectionId: string, text: string): Promise<PostResult>;
  /** Post `lastFrame` (best effort) and close the socket (locally with `code`; API Gateway picks its own). */
  close(connectionId: string, lastFrame: string, code: number): Promise<void>;
}
