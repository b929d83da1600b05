import { api, ApiError } from './api.js';
import { announce, h, replaceContent } from './dom.js';
import { fieldsLeftAlone, fieldsOf, type ItemContext, loadItem, revisionContent } from './item-context.js';
import { fieldLabel, sourceText, type Item, type Revision } from './model.js';
import { wordDiff } from './word-diff.js';

export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

/**
 * How the item would change if `target` became current: each field it sets that differs. An
 * autosave sets only the fields it carried; the others it holds empty are no change.
 */
export function changesTo(ctx: ItemContext, item: Item, target: Revision): FieldChange[] {
  return fieldsOf(ctx, target)
    .map((field) => ({ field, before: sourceText(item[field]), after: sourceText(target[field]) }))
    .filter((change) => change.before !== change.after);
}

/** The changes, then the fields `leftAlone` (not carried by an autosave) named as unchanged. */
export function changesView(changes: FieldChange[], leftAlone: string[] = []): HTMLElement {
  const unchanged = leftAlone.length
    ? h('ul', { class: 'unchanged-fields', 'aria-label': 'Fields the autosave did not carry' }, leftAlone.map((field) => h('li', { 'data-field': field }, `${fieldLabel(field)}: unchanged`)))
    : null;
  if (!changes.length) return h('div', { class: 'preview' }, h('p', { class: 'muted' }, 'Nothing would change: the item already has this content.'), unchanged);
  return h(
    'div',
    { class: 'preview' },
    changes.map((change) => h('section', { class: 'field-diff', 'data-field': change.field }, h('h3', {}, fieldLabel(change.field)), wordDiff(change.before, change.after))),
    unchanged,
  );
}

/** The value a field takes when restored on its own: a rendered field's `raw`, else the value itself. */
function restoredValue(value: unknown): unknown {
  return value && typeof value === 'object' && !Array.isArray(value) ? sourceText(value) : value;
}

/**
 * Restores `target` after showing what it changes (current → target). Sent with `If-Match`: if the
 * item changed since the preview was drawn, the service answers 412 and the preview is drawn again
 * from the item as it is now, saying so.
 */
export async function openRestore(ctx: ItemContext, state: Revision, what = `revision ${state.id}`): Promise<void> {
  const target = await revisionContent(ctx, state.id);
  const dialog = h('dialog', { class: 'restore-dialog', 'aria-labelledby': 'restore-title', 'aria-describedby': 'restore-notice' });
  document.body.append(dialog);
  dialog.addEventListener('close', () => dialog.remove());
  let current = await loadItem(ctx);

  const send = async (request: () => Promise<unknown>, done: string) => {
    try {
      await request();
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) {
        current = await loadItem(ctx);
        draw('This item was changed by someone else since the preview was shown. Here is what restoring would change now.');
        return;
      }
      draw(error instanceof Error ? error.message : 'The restore failed.');
      return;
    }
    dialog.close();
    announce(done);
    await ctx.reload();
  };

  // An autosave that did not carry every field: the restore route would make its empty ones
  // current too, so only the fields it carried are sent, as an update of the item.
  const leftAlone = fieldsLeftAlone(ctx, target);
  const draw = (notice?: string) => {
    const changes = changesTo(ctx, current.item, target);
    const restoreAll = h('button', { type: 'button', class: 'button button-primary', id: 'confirm-restore', disabled: !changes.length }, `Restore ${what}`);
    restoreAll.addEventListener('click', () =>
      send(
        () =>
          leftAlone.length
            ? api(ctx.base, { method: 'POST', headers: { 'If-Match': current.etag }, json: Object.fromEntries(changes.map((change) => [change.field, restoredValue(target[change.field])])) })
            : api(`${ctx.base}/revisions/${target.id}/restore`, { method: 'POST', headers: { 'If-Match': current.etag } }),
        `Restored ${what}.`,
      ),
    );
    const preview = changesView(changes, leftAlone);
    for (const section of preview.querySelectorAll<HTMLElement>('section[data-field]')) {
      const field = section.dataset.field!;
      section.append(
        h('button', { type: 'button', class: 'button button-small restore-field', onclick: () =>
          send(() => api(ctx.base, { method: 'POST', headers: { 'If-Match': current.etag }, json: { [field]: restoredValue(target[field]) } }), `Restored the ${fieldLabel(field).toLowerCase()} of ${what}.`) },
        `Restore only the ${fieldLabel(field).toLowerCase()}`),
      );
    }
    replaceContent(
      dialog,
      h('h2', { id: 'restore-title' }, `Restore ${what}?`),
      h('p', { id: 'restore-notice', class: notice ? 'notice notice-warning' : 'muted', role: notice ? 'alert' : null }, notice ?? 'The item will change from its current content (struck out) to this content (underlined):'),
      preview,
      h('p', { class: 'actions' }, restoreAll, h('button', { type: 'button', class: 'button', id: 'cancel-restore', onclick: () => dialog.close() }, 'Cancel')),
    );
    (dialog.querySelector('#confirm-restore:not([disabled]), #cancel-restore') as HTMLElement).focus();
  };
  draw();
  dialog.showModal();
  (dialog.querySelector('#confirm-restore:not([disabled]), #cancel-restore') as HTMLElement).focus();
}
