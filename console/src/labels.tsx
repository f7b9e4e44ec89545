import { useEffect, useState } from 'preact/hooks';
import { ErrorNote } from './ui.tsx';

/**
 * Labels as the console shows them (docs/guides/receiving.md › Labels): chips on a list's rows
 * that filter the list by their label, and on a thread an editor that adds and removes them. A
 * label set at send time may hold any characters: it is shown as text like the rest of the mail.
 */
export function LabelChips({
  labels,
  onPick,
}: {
  labels?: string[] | null;
  onPick?: (label: string) => void;
}) {
  if (!labels?.length) return null;
  return (
    <ul class="labels" aria-label="Labels">
      {labels.map((l) => (
        <li key={l}>
          {onPick ? (
            <button type="button" class="chip" title="Show only this label" onClick={() => onPick(l)}>
              {l}
            </button>
          ) : (
            <span class="chip">{l}</span>
          )}
        </li>
      ))}
    </ul>
  );
}

/** The label a list is filtered by, with a button that clears the filter. */
export function LabelFilter({ label, onClear }: { label: string; onClear: () => void }) {
  if (!label) return null;
  return (
    <p class="active-filter">
      Label <span class="chip">{label}</span>{' '}
      <button type="button" class="secondary small" onClick={onClear}>
        Show every label
      </button>
    </p>
  );
}

export interface LabelChange {
  add?: string[];
  remove?: string[];
}

/**
 * A thread's labels, editable: each chip's × removes it, the field adds one. `change` sends the
 * change and answers the labels after it; a refusal (`invalid_label`, `too_many_labels`) is shown
 * beside the field and the chips stay as they were.
 */
export function LabelEditor(props: { labels: string[]; change: (c: LabelChange) => Promise<string[]> }) {
  const [labels, setLabels] = useState(props.labels);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  useEffect(() => setLabels(props.labels), [props.labels.join('\n')]);
  const run = async (c: LabelChange) => {
    setBusy(true);
    setError(undefined);
    try {
      setLabels(await props.change(c));
      if (c.add) setDraft('');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="label-editor" aria-label="Labels">
      <RemovableChips labels={labels} busy={busy} onRemove={(l) => run({ remove: [l] })} />
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          if (draft.trim()) run({ add: [draft.trim()] });
        }}
      >
        <label>
          New label
          <input
            value={draft}
            maxLength={200}
            aria-describedby="label-rule"
            onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          Add label
        </button>
      </form>
      <p class="hint" id="label-rule">
        1 to 64 of A-Z a-z 0-9 . _ : / -, starting with a letter or digit.
      </p>
      <ErrorNote error={error} />
    </section>
  );
}

/** A thread's labels, each chip with a × that removes it. */
function RemovableChips(props: { labels: string[]; busy: boolean; onRemove: (label: string) => void }) {
  return (
    <ul class="labels">
      {props.labels.map((l) => (
        <li key={l}>
          <span class="chip">
            {l}
            <button
              type="button"
              class="chip-remove"
              aria-label={`Remove label ${l}`}
              disabled={props.busy}
              onClick={() => props.onRemove(l)}
            >
              ×
            </button>
          </span>
        </li>
      ))}
      {props.labels.length === 0 ? <li class="hint">No labels.</li> : null}
    </ul>
  );
}
