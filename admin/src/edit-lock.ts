import { api, ApiError } from './api.js';
import { announce, formatDateTime, fromGmt, h, replaceContent } from './dom.js';
import { type ItemContext } from './item-context.js';
import { ITEM_TYPES } from './model.js';
import { authorNames, nameOf } from './users.js';

/** An item's `lock` field: who is editing it, since when, until when unless refreshed. */
export interface EditLock {
  user: number;
  since: string;
  refreshed: string;
  lapses: string;
}

// WordPress's editor refreshes its lock with the heartbeat (15 to 60 s); the lock lapses after 150 s.
const REFRESH_MS = 60_000;

let refresher: number | undefined;
let held: string | undefined;

/** Stops refreshing the lock this page holds, and releases it (leaving the item's view). */
export async function releaseLock(options: { leavingPage?: boolean } = {}): Promise<void> {
  window.clearInterval(refresher);
  refresher = undefined;
  if (held === undefined) return;
  const base = held;
  held = undefined;
  await api(`${base}/lock`, { method: 'DELETE', keepalive: options.leavingPage }).catch(() => undefined);
}

window.addEventListener('pagehide', () => void releaseLock({ leavingPage: true }));

/**
 * The item's edit lock, as WordPress's editor keeps it: taken while the page is open on a free
 * item and refreshed until it is left; when another user holds it, who and since when, with a
 * take-over that asks first. Locks are advisory: a restore is never refused for one.
 */
export async function showEditLock(slot: HTMLElement, ctx: ItemContext): Promise<void> {
  if (held !== ctx.base) await releaseLock();
  const lock = ctx.item.lock as EditLock | null | undefined;
  // A type without locks (its items carry no `lock` field).
  if (lock === undefined) return replaceContent(slot);
  if (lock === null || lock.user === ctx.user.id) return held === ctx.base ? drawHeld(slot, false) : hold(slot, ctx, false);
  const names = await authorNames([lock.user]);
  const holder = nameOf(names, lock.user);
  const takeOver = h('button', { type: 'button', class: 'button', id: 'take-over' }, 'Take over…');
  takeOver.addEventListener('click', () => confirmTakeOver(slot, ctx, holder));
  replaceContent(
    slot,
    h(
      'div',
      { class: 'notice notice-warning edit-lock', id: 'edit-lock' },
      h('p', {}, `${holder} has been editing this ${ITEM_TYPES[ctx.type].toLowerCase()} since ${formatDateTime(fromGmt(lock.since))}. What you restore may be overwritten by their next save.`),
      h('p', { class: 'actions' }, takeOver),
    ),
  );
}

async function hold(slot: HTMLElement, ctx: ItemContext, takeOver: boolean): Promise<void> {
  try {
    await api(`${ctx.base}/lock`, { method: 'POST', json: takeOver ? { take_over: true } : {} });
  } catch (error) {
    // Taken by someone else since the item was read: show who.
    if (error instanceof ApiError && error.status === 409) return ctx.reload();
    throw error;
  }
  held = ctx.base;
  window.clearInterval(refresher);
  refresher = window.setInterval(() => {
    // Refused (taken over, or the session ended): the item is drawn again, showing who holds it.
    // (Not released: it may be someone else's now.)
    void api(`${ctx.base}/lock`, { method: 'POST', json: {} }).catch(async () => {
      window.clearInterval(refresher);
      held = undefined;
      await ctx.reload();
    });
  }, REFRESH_MS);
  drawHeld(slot, takeOver);
}

function drawHeld(slot: HTMLElement, tookOver: boolean): void {
  replaceContent(slot, h('p', { class: 'muted edit-lock', id: 'edit-lock' }, tookOver ? 'You took over: others opening this item see that you are editing it.' : 'Others opening this item see that you are editing it.'));
}

function confirmTakeOver(slot: HTMLElement, ctx: ItemContext, holder: string): void {
  const dialog = h('dialog', { class: 'restore-dialog', 'aria-labelledby': 'take-over-title' });
  document.body.append(dialog);
  dialog.addEventListener('close', () => dialog.remove());
  const confirm = h('button', { type: 'button', class: 'button button-primary', id: 'confirm-take-over' }, 'Take over');
  confirm.addEventListener('click', async () => {
    dialog.close();
    await hold(slot, ctx, true);
    announce(`You took over from ${holder}.`);
  });
  replaceContent(
    dialog,
    h('h2', { id: 'take-over-title' }, `Take over from ${holder}?`),
    h('p', {}, `Others, ${holder} included, will then see that you are editing it. Locks refuse no one's saves: ${holder}'s autosaves stay theirs.`),
    h('p', { class: 'actions' }, confirm, h('button', { type: 'button', class: 'button', id: 'cancel-take-over', onclick: () => dialog.close() }, 'Cancel')),
  );
  dialog.showModal();
  confirm.focus();
}
