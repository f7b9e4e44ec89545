import { useState } from 'preact/hooks';
import { ErrorNote } from '../ui.tsx';

/** The key is typed here and kept in this tab's sessionStorage only (console/src/api.ts). */
export function SignIn({ error, onKey }: { error: unknown; onKey: (key: string) => Promise<void> }) {
  const [key, setKey] = useState('');
  return (
    <main class="sign-in">
      <h1>pmail console</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim()) onKey(key.trim());
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        />
        <button type="submit">Sign in</button>
        <p class="hint">The key stays in this browser tab and is sent only to this pmail API.</p>
        <ErrorNote error={error} />
      </form>
    </main>
  );
}
