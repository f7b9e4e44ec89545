import { useEffect, useRef, useState } from 'preact/hooks';
import type { StreamEvent } from '../../packages/client/src/stream.ts';
import { pmail } from './api.ts';

/** What a page follows on the event stream (docs/guides/stream.md › Opening a stream). */
export interface LiveFilter {
  identity_id?: string;
  thread_id?: string;
  types?: string[];
}

/**
 * Follow the key's event stream while the page is shown: `onEvent` for each event the filter
 * selects, a burst of them coalesced into one call (a page reloads once). The browser cannot set a
 * header on a WebSocket, so each connect takes a ticket with the key (POST /v1/stream/tickets);
 * the stream reconnects and resumes by itself (@pmail/client's stream). Answers whether the stream
 * is open now ("Live"). A key that may not read events, or no filter, follows nothing.
 */
export function useLive(filter: LiveFilter | undefined, onEvent: (events: StreamEvent[]) => void): boolean {
  const [live, setLive] = useState(false);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const key = JSON.stringify(filter ?? null);
  useEffect(() => {
    if (!filter) return;
    const stop = new AbortController();
    let batch: StreamEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      const events = batch;
      batch = [];
      handler.current(events);
    };
    (async () => {
      try {
        for await (const event of pmail().stream({
          identityId: filter.identity_id,
          threadId: filter.thread_id,
          types: filter.types,
          auth: 'ticket',
          signal: stop.signal,
          onOpen: () => setLive(true),
        })) {
          batch.push(event);
          clearTimeout(timer);
          timer = setTimeout(flush, 150);
        }
      } catch {
        // A key without events:read, or a stream closed for good: the page stays as it loaded.
      }
      setLive(false);
    })();
    return () => {
      clearTimeout(timer);
      stop.abort();
    };
  }, [key]);
  return live;
}
