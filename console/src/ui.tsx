import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Me, PmailError } from './api.ts';

/** What a page gets: the key's own description (GET /v1/me) and the identities it reaches. */
export interface PageProps {
  me: Me;
  identities: { id: string; username: string; primary_address: string }[];
  params: Record<string, string>;
}

export const can = (me: Me, permission: string) => me.permissions.includes(permission);

/** The query of the page's address (`#/messages?identity=…&label=…`): filters a person can share. */
export const addressQuery = () => new URLSearchParams(location.hash.split('?')[1] ?? '');

/** Keeps `values` (the empty ones left out) as the query of the page's address, in place. */
export function useAddress(values: Record<string, string> | undefined) {
  const json = JSON.stringify(values ?? null);
  useEffect(() => {
    if (!values) return;
    const q = new URLSearchParams(Object.entries(values).filter(([, v]) => v));
    history.replaceState(null, '', `${location.hash.split('?')[0]}?${q}`);
  }, [json]);
}

/** A value loaded once per `deps` change, with its error; `reload` reads it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ value?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  // The caller names what the load depends on.
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (value) => live && setState({ value, loading: false }),
      (error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof PmailError ? `${error.code}: ${error.message}` : String(error);
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

/** "Live" while the page's event stream is open (console/src/live.ts): it updates by itself. */
export function LiveMark({ live }: { live: boolean }) {
  return live ? (
    <p class="live" role="status">
      Live
    </p>
  ) : null;
}

export function Loading({ when }: { when: boolean }) {
  return when ? <p aria-live="polite">Loading…</p> : null;
}

export function Status({ value }: { value: string }) {
  return <span class={`status status-${value}`}>{value}</span>;
}

export const time = (iso: string | null | undefined) =>
  iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 19) : '—';

/**
 * A button that asks before it acts: a modal `<dialog>` naming the action, with Confirm and Cancel.
 * `run` is called once on Confirm; its error is shown beside the button.
 */
export function ConfirmButton(props: {
  label: string;
  question: string;
  run: () => Promise<unknown>;
  danger?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const confirm = async () => {
    dialog.current?.close();
    setBusy(true);
    setError(undefined);
    try {
      await props.run();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="confirm">
      <button
        type="button"
        class={props.danger ? 'danger' : ''}
        disabled={busy}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={dialog} aria-label={`Confirm: ${props.label}`}>
        <p>{props.question}</p>
        <div class="actions">
          <button type="button" onClick={confirm}>
            Confirm
          </button>
          <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
      <ErrorNote error={error} />
    </span>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="secondary small"
      // The visible word is part of the name (WCAG 2.5.3): "Copy name …", then "Copied name …".
      aria-label={done ? label.replace(/^Copy\b/, 'Copied') : label}
      onClick={async () => {
        await navigator.clipboard?.writeText(text).catch(() => undefined);
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? 'Copied' : 'Copy'}
    </button>
  );
}

/**
 * Previous and next page over a list's cursors: `cursors` holds the cursor of each page read so
 * far (the first is undefined), `next` the answer's `next_cursor`.
 */
export function Paging(props: {
  cursors: (string | undefined)[];
  next: string | null | undefined;
  onChange: (cursors: (string | undefined)[]) => void;
}) {
  const { cursors, next, onChange } = props;
  return (
    <div class="paging">
      <button
        type="button"
        class="secondary"
        disabled={cursors.length < 2}
        onClick={() => onChange(cursors.slice(0, -1))}
      >
        Previous page
      </button>
      <button
        type="button"
        class="secondary"
        disabled={!next}
        onClick={() => next && onChange([...cursors, next])}
      >
        Next page
      </button>
    </div>
  );
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section>
      <h2>{title}</h2>
      {children}
    </section>
  );
}
