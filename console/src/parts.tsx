import { type ComponentChildren, Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { type Mailbox, pmail } from './api.ts';
import { ErrorNote, LiveMark, Loading } from './ui.tsx';

/**
 * The parts every page is made of: what a load says (live, refused, loading), a table of rows, a
 * select, and the cursors of a paged list. A page names what differs (its columns, its filters);
 * these keep the rest alike across pages.
 */

/** A load's state above its content: "Live" when the page follows the stream, its error, "Loading…". */
export function LoadState(props: { error: unknown; loading: boolean; live?: boolean }) {
  return (
    <>
      {props.live === undefined ? null : <LiveMark live={props.live} />}
      <ErrorNote error={props.error} />
      <Loading when={props.loading} />
    </>
  );
}

/** One column of a Table: its header and what a row shows in it; `when: false` leaves it out. */
export interface Column<T> {
  head: string;
  cell: (row: T) => ComponentChildren;
  when?: boolean;
}

/**
 * A table of `rows`, a column each; `empty` is its one row when `loaded` and there are none.
 * `caption` names the table (hidden unless `showCaption`); `attrs` adds a row's data attributes.
 */
interface TableProps<T> {
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  empty?: string;
  loaded?: boolean;
  caption?: string;
  showCaption?: boolean;
  attrs?: (row: T) => Record<`data-${string}`, string>;
}

export function Table<T>(props: TableProps<T>) {
  const columns = props.columns.filter((c) => c.when !== false);
  return (
    <table>
      {props.caption ? (
        <caption class={props.showCaption ? undefined : 'visually-hidden'}>{props.caption}</caption>
      ) : null}
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.head} scope="col">
              {c.head}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={props.rowKey(row)} {...props.attrs?.(row)}>
            {columns.map((c) => (
              <td key={c.head}>{c.cell(row)}</td>
            ))}
          </tr>
        ))}
        {props.empty && props.loaded && props.rows.length === 0 ? (
          <tr>
            <td colSpan={columns.length}>{props.empty}</td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}

/** A list read whole (a useLoad of a `{ data }` answer): its load's state, then its rows as a Table. */
export function LoadedTable<T>(
  props: Omit<TableProps<T>, 'rows' | 'loaded'> & {
    load: { value?: { data: T[] }; error?: unknown; loading: boolean };
  },
) {
  const { load, ...table } = props;
  return (
    <>
      <LoadState error={load.error} loading={load.loading} />
      <Table {...table} rows={load.value?.data ?? []} loaded={Boolean(load.value)} />
    </>
  );
}

/** A labelled select; `onChange` hears the value chosen. */
export function Choice(props: {
  label: string;
  value: string;
  options: { value: string; text: string }[];
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.text}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The identities a key reaches, as a Choice's options. */
export const identityOptions = (identities: { id: string; username: string; primary_address: string }[]) =>
  identities.map((i) => ({ value: i.id, text: `${i.username} (${i.primary_address})` }));

/** The cursor of each page of a list read so far (the first is undefined), and the one shown now. */
export function useCursors() {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  return {
    cursors,
    setCursors,
    cursor: cursors[cursors.length - 1],
    /** Back to the first page (a filter changed). */
    reset: () => setCursors([undefined]),
  };
}

/** Names and values (`<dl>`), in order; an entry whose value is undefined is left out. */
export function Facts({ entries }: { entries: [name: string, value: ComponentChildren | undefined][] }) {
  return (
    <dl class="headers">
      {entries
        .filter(([, value]) => value !== undefined)
        .map(([name, value]) => (
          <Fragment key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </Fragment>
        ))}
    </dl>
  );
}

/** Addresses as a header shows them: `Name <address>`, comma-separated. */
export const addresses = (ms: Mailbox[]) =>
  ms.map((m) => (m.name ? `${m.name} <${m.address}>` : m.address)).join(', ');

/** Addresses, or undefined where there are none (a Facts entry left out). */
const someAddresses = (ms: Mailbox[]) => (ms.length ? addresses(ms) : undefined);

/** A message's From, To, Cc and Bcc as Facts entries (Cc and Bcc only when it has them). */
export const addressFacts = (m: {
  from: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
}): [string, string | undefined][] => [
  ['From', addresses([m.from])],
  ['To', addresses(m.to) || '—'],
  ['Cc', someAddresses(m.cc)],
  ['Bcc', someAddresses(m.bcc)],
];

/** What a button does to a message: the API call, then `reload` (the page reads it again). */
export const messageAction =
  (reload: () => void) =>
  (
    m: { identity_id: string; id: string },
    action: 'cancel' | 'retry' | 'approve' | 'reject' | 'release' | 'delete',
  ) =>
  async () => {
    await pmail().messages[action](m.identity_id, m.id);
    reload();
  };
