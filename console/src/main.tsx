import 'uplot/dist/uPlot.min.css';
import './console.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type Identity, identitiesOf, type Me, PmailError, pmail, session } from './api.ts';
import { Approvals } from './pages/approvals.tsx';
import { Domains } from './pages/domains.tsx';
import { Held } from './pages/held.tsx';
import { Inbox } from './pages/inbox.tsx';
import { Keys } from './pages/keys.tsx';
import { MessagePage } from './pages/message.tsx';
import { Messages } from './pages/messages.tsx';
import { Overview } from './pages/overview.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { Suppressions } from './pages/suppressions.tsx';
import { Templates } from './pages/templates.tsx';
import { ThreadPage, Threads } from './pages/threads.tsx';
import { WebhookPage, Webhooks } from './pages/webhooks.tsx';
import { can, ErrorNote, type PageProps } from './ui.tsx';

/**
 * Hash routing: `#/messages`, `#/messages/{identity_id}/{message_id}`, … — every page has its own
 * URL a person can share, and the server serves one document for all of them.
 */
interface PageDef {
  path: string;
  title: string;
  nav?: string;
  /** Shown in the navigation only when the key holds this permission. */
  needs?: string;
  tenantOnly?: boolean;
  component: (p: PageProps) => preact.JSX.Element;
}

const PAGES: PageDef[] = [
  {
    path: 'overview',
    title: 'Overview',
    nav: 'Overview',
    needs: 'events:read',
    tenantOnly: true,
    component: Overview,
  },
  { path: 'messages', title: 'Messages', nav: 'Messages', needs: 'messages:read', component: Messages },
  { path: 'messages/:identity/:message', title: 'Message', needs: 'messages:read', component: MessagePage },
  { path: 'inbox', title: 'Inbox', nav: 'Inbox', needs: 'messages:read', component: Inbox },
  { path: 'threads', title: 'Threads', nav: 'Threads', needs: 'messages:read', component: Threads },
  { path: 'threads/:identity/:thread', title: 'Thread', needs: 'messages:read', component: ThreadPage },
  {
    path: 'approvals',
    title: 'Approvals',
    nav: 'Approvals',
    needs: 'messages:read',
    component: Approvals,
  },
  // Mail held back from the agents (console/src/pages/held.tsx).
  { path: 'held', title: 'Held mail', nav: 'Held', needs: 'messages:hold', component: Held },
  {
    path: 'suppressions',
    title: 'Suppressions',
    nav: 'Suppressions',
    needs: 'suppressions:manage',
    tenantOnly: true,
    component: Suppressions,
  },
  {
    path: 'templates',
    title: 'Templates',
    nav: 'Templates',
    needs: 'templates:read',
    tenantOnly: true,
    component: Templates,
  },
  {
    path: 'domains',
    title: 'Domains',
    nav: 'Domains',
    needs: 'domains:read',
    tenantOnly: true,
    component: Domains,
  },
  {
    path: 'webhooks',
    title: 'Webhooks',
    nav: 'Webhooks',
    needs: 'webhooks:read',
    tenantOnly: true,
    component: Webhooks,
  },
  {
    path: 'webhooks/:webhook',
    title: 'Webhook',
    needs: 'webhooks:read',
    tenantOnly: true,
    component: WebhookPage,
  },
  { path: 'keys', title: 'Keys', nav: 'Keys', component: Keys },
];

function match(hash: string): { page: PageDef; params: Record<string, string> } | undefined {
  const parts = hash.replace(/^#\/?/, '').split('?')[0].split('/').filter(Boolean).map(decodeURIComponent);
  for (const page of PAGES) {
    const want = page.path.split('/');
    if (want.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const ok = want.every((w, i) => {
      if (!w.startsWith(':')) return w === parts[i];
      params[w.slice(1)] = parts[i];
      return true;
    });
    if (ok) return { page, params };
  }
  return undefined;
}

const visible = (me: Me, p: PageDef) =>
  (!p.needs || can(me, p.needs)) && (!p.tenantOnly || (me.level !== 'identity' && me.tenant_id !== null));

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function App() {
  const hash = useHash();
  const [me, setMe] = useState<Me | null>(null);
  const [identities, setIdentities] = useState<Identity[]>([]);
  const [error, setError] = useState<unknown>();
  const [checking, setChecking] = useState(Boolean(session.key()));

  const load = async () => {
    setError(undefined);
    try {
      const who = await pmail().me();
      setIdentities(await identitiesOf(who));
      setMe(who);
    } catch (e) {
      if (e instanceof PmailError && e.status === 401) session.signOut();
      setMe(null);
      setError(e);
    } finally {
      setChecking(false);
    }
  };
  useEffect(() => {
    if (session.key()) load();
  }, []);

  if (!me) {
    if (checking) return <p aria-live="polite">Checking the key…</p>;
    return (
      <SignIn
        error={error}
        onKey={(key) => {
          session.signIn(key);
          setChecking(true);
          return load();
        }}
      />
    );
  }

  const found = match(hash);
  const first = PAGES.find((p) => p.nav && visible(me, p))!;
  const { page, params } = found ?? { page: first, params: {} };
  const Page = page.component;
  document.title = `${page.title} · pmail console`;
  return (
    <>
      <header>
        <a class="brand" href="#/">
          pmail console
        </a>
        <nav aria-label="Pages">
          <ul>
            {PAGES.filter((p) => p.nav && visible(me, p)).map((p) => (
              <li key={p.path}>
                <a
                  href={`#/${p.path}`}
                  aria-current={page === p || page.path.startsWith(`${p.path}/`) ? 'page' : undefined}
                >
                  {p.nav}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            {me.name ?? me.key_id} ({me.level}
            {me.mode ? `, ${me.mode}` : ''})
          </span>
          <button
            type="button"
            class="secondary small"
            onClick={() => {
              session.signOut();
              setMe(null);
              location.hash = '';
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main>
        <h1>{page.title}</h1>
        {visible(me, page) ? (
          <Page me={me} identities={identities} params={params} />
        ) : (
          <ErrorNote error={new Error('This key may not open this page.')} />
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
