import { api, ApiError } from './api.js';
import { announce, formatDateTime, fromGmt, h, replaceContent } from './dom.js';
import { type ItemContext } from './item-context.js';
import { type Revision } from './model.js';
import { changesTo, changesView, openRestore } from './restore.js';
import { nameOf } from './users.js';

/**
 * WordPress's "There is an autosave of this post that is more recent than the version below":
 * the newest autosave (the caller's or another user's) that is newer than the item, with its
 * difference from the item, to restore or discard.
 */
export function showAutosaveBanner(slot: HTMLElement, ctx: ItemContext, autosaves: Revision[]): void {
  // WordPress's test: newer than the item, and different from it. Dates are whole seconds, so an
  // autosave of the same second as the item counts when it differs.
  const newer = autosaves.find((autosave) => autosave.modified_gmt >= ctx.item.modified_gmt && changesTo(ctx, ctx.item, autosave).length > 0);
  if (!newer) return replaceContent(slot);
  const whose = newer.author === ctx.user.id ? 'your' : `${nameOf(ctx.names, newer.author)}’s`;
  const error = h('p', { class: 'notice notice-error', role: 'alert', hidden: true });
  const discard = async () => {
    try {
      await api(`${ctx.base}/revisions/${newer.id}`, { method: 'DELETE', query: { force: 'true' } });
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? failure.message : 'The autosave could not be discarded.';
      error.hidden = false;
      return;
    }
    announce('Autosave discarded.');
    await ctx.reload();
  };
  replaceContent(
    slot,
    h(
      'section',
      { class: 'notice notice-warning autosave-banner', 'aria-labelledby': 'autosave-heading' },
      h('h2', { id: 'autosave-heading' }, `There is an autosave (${whose}) more recent than the version below`),
      h('p', {}, `Saved ${formatDateTime(fromGmt(newer.modified_gmt))}. It differs from the item as follows:`),
      changesView(changesTo(ctx, ctx.item, newer)),
      error,
      h(
        'p',
        { class: 'actions' },
        h('button', { type: 'button', class: 'button button-primary', id: 'autosave-restore', onclick: () => void openRestore(ctx, newer, 'the autosave') }, 'Restore the autosave…'),
        h('button', { type: 'button', class: 'button', id: 'autosave-discard', onclick: () => void discard() }, 'Discard the autosave'),
      ),
    ),
  );
}
