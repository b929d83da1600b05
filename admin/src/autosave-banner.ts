import { api, ApiError } from './api.js';
import { type AutosaveLog } from './autosave-log.js';
import { announce, formatDateTime, fromGmt, h, replaceContent } from './dom.js';
import { type EditLock } from './edit-lock.js';
import { fieldsLeftAlone, type ItemContext } from './item-context.js';
import { ITEM_TYPES, type HistoryEntry, type Revision } from './model.js';
import { changesTo, changesView, openRestore } from './restore.js';
import { authorNames, nameOf } from './users.js';

/**
 * WordPress's "There is an autosave of this post that is more recent than the version below":
 * the newest autosave (the caller's or another user's) that is newer than the item, with its
 * difference from the item, to restore or discard. Beyond WordPress, nothing the caller typed is
 * lost to a take-over: their own autosave that another user saved over (it stays theirs) is
 * offered too, older as it is, compared with what the item holds now.
 */
export async function showAutosaveBanner(slot: HTMLElement, ctx: ItemContext, autosaves: Revision[], log: AutosaveLog): Promise<void> {
  const differs = (autosave: Revision) => changesTo(ctx, ctx.item, autosave).length > 0;
  // Saves of the item by others after the autosave, in the log's order (dates are whole seconds,
  // and a take-over and its save may well fall in the autosave's second).
  const savedByOthers = (autosave: Revision) => (log.savedAfter.get(autosave.id) ?? []).filter((entry) => entry.author !== autosave.author);
  const savedOver = autosaves.find((autosave) => autosave.author === ctx.user.id && savedByOthers(autosave).length > 0 && differs(autosave));
  // WordPress's test: newer than the item, and different from it. The log says which is newer;
  // without it, an autosave of the same second as the item counts when it differs.
  const newer = (autosave: Revision) => log.savedAfter.get(autosave.id)?.length === 0 || (!log.savedAfter.has(autosave.id) && autosave.modified_gmt >= ctx.item.modified_gmt);
  const offered = savedOver ?? autosaves.find((autosave) => newer(autosave) && differs(autosave));
  if (!offered) return replaceContent(slot);
  const error = h('p', { class: 'notice notice-error', role: 'alert', hidden: true });
  const discard = async () => {
    try {
      await api(`${ctx.base}/revisions/${offered.id}`, { method: 'DELETE', query: { force: 'true' } });
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? failure.message : 'The autosave could not be discarded.';
      error.hidden = false;
      return;
    }
    announce('Autosave discarded.');
    await ctx.reload();
  };
  const whose = offered.author === ctx.user.id ? 'your' : `${nameOf(ctx.names, offered.author)}’s`;
  const saved = `Saved ${formatDateTime(fromGmt(offered.modified_gmt))}.`;
  const intro = savedOver
    ? [h('h2', { id: 'autosave-heading' }, 'Your autosave was kept: it is older than the version below'), await savedOverNote(ctx, savedOver, savedByOthers(savedOver))]
    : [h('h2', { id: 'autosave-heading' }, `There is an autosave (${whose}) more recent than the version below`), h('p', {}, `${saved} It differs from the item as follows:`)];
  replaceContent(
    slot,
    h(
      'section',
      { class: 'notice notice-warning autosave-banner', 'aria-labelledby': 'autosave-heading' },
      intro,
      changesView(changesTo(ctx, ctx.item, offered), fieldsLeftAlone(ctx, offered)),
      error,
      h(
        'p',
        { class: 'actions' },
        h('button', { type: 'button', class: 'button button-primary', id: 'autosave-restore', onclick: () => void openRestore(ctx, offered, 'the autosave') }, 'Restore the autosave…'),
        h('button', { type: 'button', class: 'button', id: 'autosave-discard', onclick: () => void discard() }, 'Discard the autosave'),
      ),
    ),
  );
}

/**
 * Who saved over the caller's autosave, and, when the item's edit lock went to another user after
 * it (a take-over, or the caller's lock lapsed), who holds it and since when.
 */
async function savedOverNote(ctx: ItemContext, autosave: Revision, savedSince: HistoryEntry[]): Promise<HTMLElement> {
  const what = ITEM_TYPES[ctx.type].toLowerCase();
  const latest = savedSince.at(-1)!;
  const lock = ctx.item.lock as EditLock | null | undefined;
  const takenOver = lock && lock.user !== ctx.user.id && lock.since >= autosave.modified_gmt ? lock : null;
  const names = await authorNames([latest.author, ...(takenOver ? [takenOver.user] : [])]);
  const savedAt = formatDateTime(fromGmt(latest.date_gmt));
  const autosavedAt = formatDateTime(fromGmt(autosave.modified_gmt));
  const lockNote = takenOver ? `${nameOf(names, takenOver.user)} took over editing this ${what} at ${formatDateTime(fromGmt(takenOver.since))}, after your autosave of ${autosavedAt}. ` : '';
  const saveNote = takenOver ? `${nameOf(names, latest.author)} saved it at ${savedAt}.` : `${nameOf(names, latest.author)} saved this ${what} at ${savedAt}, after your autosave of ${autosavedAt}.`;
  return h(
    'p',
    { id: 'autosave-taken-over' },
    `${lockNote}${saveNote} Your autosave is still yours: here is how it differs from what the ${what} holds now (struck out), to restore or discard.`,
  );
}
