import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useIdentity } from '../identity.ts';
import { LabelChips, LabelFilter } from '../labels.tsx';
import { Choice, identityOptions, useCursors } from '../parts.tsx';
import { type Highlight, HighlightText, SearchBox } from '../search.tsx';
import { addressQuery, type PageProps, useAddress } from '../ui.tsx';

/**
 * What the Messages, Inbox and Threads lists share: the identity they list, a label filter, the
 * search box and the page's cursors, all but the cursors kept in the page's address
 * (`#/messages?identity=…&label=…&q=…`), and each row's highlight or snippet and labels.
 */
export function useMailList(identities: PageProps['identities'], extra: Record<string, string> = {}) {
  const given = addressQuery();
  const [identity, setIdentity] = useIdentity(identities, given.get('identity'));
  const [label, setLabel] = useState(given.get('label') ?? '');
  const [q, setQ] = useState(given.get('q') ?? '');
  const paging = useCursors();
  useAddress(identity ? { identity, ...extra, label, q } : undefined);
  /** A filter's setter that also goes back to the first page. */
  const firstPage =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      paging.reset();
    };
  return {
    identity,
    label,
    q,
    ...paging,
    firstPage,
    chooseIdentity: firstPage(setIdentity),
    pickLabel: firstPage(setLabel),
    search: firstPage(setQ),
    /** The list call's filters: the empty ones left out. */
    query: { label: label || undefined, q: q || undefined },
  };
}

type MailList = ReturnType<typeof useMailList>;

/** The filters above a list: identity, the page's own (`children`), label, then the search box. */
export function MailFilters(props: {
  list: MailList;
  identities: PageProps['identities'];
  children?: ComponentChildren;
}) {
  const { list } = props;
  return (
    <>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Choice
          label="Identity"
          value={list.identity}
          options={identityOptions(props.identities)}
          onChange={list.chooseIdentity}
        />
        {props.children}
        <label>
          Label
          <input
            value={list.label}
            onChange={(e) => list.pickLabel((e.target as HTMLInputElement).value.trim())}
          />
        </label>
      </form>
      <SearchBox q={list.q} onSearch={list.search} />
      <LabelFilter label={list.label} onClear={() => list.pickLabel('')} />
    </>
  );
}

/** A row's subject cell: its link, where a search found it (else its snippet), and its labels. */
export function SubjectCell(props: {
  href: string;
  row: { subject: string; snippet?: string | null; highlight?: Highlight; labels?: string[] | null };
  onLabel: (label: string) => void;
}) {
  const { row } = props;
  return (
    <>
      <a href={props.href}>{row.subject || '(no subject)'}</a>
      {row.highlight ? (
        <HighlightText highlight={row.highlight} />
      ) : row.snippet ? (
        <div class="hint snippet">{row.snippet}</div>
      ) : null}
      <LabelChips labels={row.labels} onPick={props.onLabel} />
    </>
  );
}
