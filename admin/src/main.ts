import { ApiError, currentSession, signOut, type SessionUser } from './api.js';
import { announce, h, replaceContent } from './dom.js';
import { releaseLock } from './edit-lock.js';
import { showFinder } from './finder.js';
import { showItem } from './item.js';
import { isItemType } from './model.js';
import { showSignIn } from './sign-in.js';
import { rememberName } from './users.js';

const main = document.getElementById('main')!;
let user: SessionUser | null = null;

/** Moves to another view of the page (a new history entry), without reloading it. */
export function navigate(search: string, replace = false): void {
  const url = new URL(window.location.href);
  url.search = search;
  if (replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  if (!replace) void route();
}

function showUser(): void {
  const bar = document.getElementById('bar-user')!;
  bar.hidden = !user;
  document.getElementById('bar-name')!.textContent = user ? `Signed in as ${user.name}` : '';
}

async function route(): Promise<void> {
  if (!user) {
    showSignIn(main, (signedIn) => {
      user = signedIn;
      showUser();
      void route();
    });
    return;
  }
  rememberName(user);
  const params = new URLSearchParams(window.location.search);
  const type = params.get('type');
  const id = Number(params.get('id'));
  try {
    if (isItemType(type) && id > 0) await showItem(main, { type, id, params, user });
    else {
      await releaseLock();
      await showFinder(main, params.get('q') ?? '');
    }
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      user = null;
      showUser();
      return route();
    }
    replaceContent(main, h('h1', {}, 'Something went wrong'), h('p', { class: 'notice notice-error', role: 'alert' }, error instanceof Error ? error.message : String(error)));
  }
}

document.getElementById('sign-out')!.addEventListener('click', async () => {
  await releaseLock();
  await signOut();
  user = null;
  showUser();
  navigate('');
  announce('Signed out.');
});

// Links inside the page change the view in place; any modifier key keeps the browser's meaning.
document.addEventListener('click', (event) => {
  const link = (event.target as Element).closest?.('a[data-nav]');
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(new URL((link as HTMLAnchorElement).href).search);
});
window.addEventListener('popstate', () => void route());

user = await currentSession();
showUser();
await route();
