import type { PageProps } from '../ui.tsx';
import { Messages } from './messages.tsx';

/** Inbound mail of an identity: the messages page held to `direction=inbound`. */
export function Inbox(props: PageProps) {
  return <Messages {...props} fixedDirection="inbound" />;
}
