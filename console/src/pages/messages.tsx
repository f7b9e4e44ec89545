import { useState } from 'preact/hooks';
import { type Message, pmail } from '../api.ts';
import { useLive } from '../live.ts';
import { Choice, LoadState, Table } from '../parts.tsx';
import { addressQuery, can, type PageProps, Paging, Status, time, useLoad } from '../ui.tsx';
import { MailFilters, SubjectCell, useMailList } from './mail-list.tsx';

const STATUSES = [
  'pending_approval',
  'queued',
  'submitted',
  'delivered',
  'deferred',
  'bounced',
  'complained',
  'failed',
  'rejected',
  'uncertain',
  'sent',
  'canceled',
  'suppressed',
  'received',
];

const ALL = { value: '', text: 'All' };
const DIRECTIONS = [ALL, { value: 'outbound', text: 'Outbound' }, { value: 'inbound', text: 'Inbound' }];
const STATUS_OPTIONS = [ALL, ...STATUSES.map((s) => ({ value: s, text: s }))];

const messageLink = (m: Message) =>
  `#/messages/${encodeURIComponent(m.identity_id)}/${encodeURIComponent(m.id)}`;

/**
 * The messages of one identity, newest first, a page at a time (the API's cursor): who wrote each
 * and to whom, whatever its direction, with its labels. Direction, label and the search box's
 * words are the API's filters; status filters the page shown. It opens on the identity
 * src/identity.ts chooses; the identity's message events on the stream reload the page (a message
 * sent, received, delivered, bounced…).
 */
export function Messages({ me, identities, fixedDirection }: PageProps & { fixedDirection?: 'inbound' }) {
  const given = addressQuery();
  const [direction, setDirection] = useState(fixedDirection ?? given.get('direction') ?? '');
  const [status, setStatus] = useState(given.get('status') ?? '');
  const list = useMailList(identities, { direction: fixedDirection ? '' : direction, status });
  const { identity, cursor } = list;
  const page = useLoad(
    () =>
      identity
        ? pmail().messages.list(identity, {
            direction: direction === 'inbound' || direction === 'outbound' ? direction : undefined,
            ...list.query,
            cursor,
            limit: 25,
          })
        : Promise.resolve(undefined),
    [identity, direction, list.label, list.q, cursor],
  );
  const live = useLive(
    identity && can(me, 'events:read') ? { identity_id: identity, types: ['message.*'] } : undefined,
    () => page.reload(),
  );
  const rows = (page.value?.data ?? []).filter((m) => !status || m.status === status);
  return (
    <>
      <MailFilters list={list} identities={identities}>
        {fixedDirection ? null : (
          <Choice
            label="Direction"
            value={direction}
            options={DIRECTIONS}
            onChange={list.firstPage(setDirection)}
          />
        )}
        <Choice label="Status" value={status} options={STATUS_OPTIONS} onChange={setStatus} />
      </MailFilters>
      <LoadState live={live} error={page.error} loading={page.loading && !page.value} />
      <Table
        caption="Messages"
        rows={rows}
        rowKey={(m) => m.id}
        attrs={(m) => ({ 'data-message': m.id })}
        empty="No messages."
        loaded={!page.loading}
        columns={[
          {
            head: 'Subject',
            cell: (m) => <SubjectCell href={messageLink(m)} row={m} onLabel={list.pickLabel} />,
          },
          { head: 'From', cell: (m) => m.from.address },
          // Whom it was written to, sent or received: a received message's To and Cc, never its sender.
          { head: 'Recipients', cell: (m) => [...m.to, ...m.cc, ...m.bcc].map((r) => r.address).join(', ') },
          { head: 'Status', cell: (m) => <Status value={m.status} /> },
          { head: 'Time', cell: (m) => time(m.sent_at ?? m.received_at) },
        ]}
      />
      <Paging cursors={list.cursors} next={page.value?.next_cursor} onChange={list.setCursors} />
    </>
  );
}
