import { api, ApiError, type SessionUser } from './api.js';
import { showAutosaveBanner } from './autosave-banner.js';
import { readAutosaveLog } from './autosave-log.js';
import { showCompare } from './compare.js';
import { formatDateTime, fromGmt, h, replaceContent } from './dom.js';
import { showEditLock } from './edit-lock.js';
import { loadItem, type ItemContext } from './item-context.js';
import { ITEM_TYPES, titleOf, type ItemType, type Revision, type RevisionDiff } from './model.js';
import { showTimeline } from './timeline.js';
import { authorNames } from './users.js';

// An item with no revision yet has no diff to name its revisioned fields: WordPress's own list.
const FIELDS_BEFORE_ANY_REVISION: Record<ItemType, string[]> = {
  posts: ['title', 'content', 'excerpt'],
  pages: ['title', 'content', 'excerpt'],
  'menu-items': ['title', 'url', 'attr_title', 'description', 'target', 'classes', 'xfn'],
};

async function allRevisions(base: string): Promise<Revision[]> {
  const revisions: Revision[] = [];
  for (let page = 1; ; page++) {
    // Only what the scrubber and the timeline name: a revision's content is read when it is shown.
    const { data, headers } = await api<Revision[]>(`${base}/revisions`, { query: { per_page: 100, page, order: 'asc', orderby: 'date', _fields: 'id,author,date_gmt,modified_gmt,parent' } });
    revisions.push(...data);
    if (page >= Number(headers.get('X-WP-TotalPages') ?? 1)) return revisions;
  }
}

export async function showItem(main: HTMLElement, where: { type: ItemType; id: number; params: URLSearchParams; user: SessionUser }): Promise<void> {
  const base = `${where.type}/${where.id}`;
  replaceContent(main, h('p', { class: 'loading' }, 'Loading…'));
  let loaded;
  try {
    loaded = await loadItem({ base });
  } catch (error) {
    // Whatever the reason (no such item, or one the caller may not edit), nothing of it is shown.
    if (error instanceof ApiError && error.status !== 401) {
      document.title = 'Not available · CMS admin';
      replaceContent(main, backLink(), h('h1', {}, 'Not available'), h('p', { class: 'notice notice-error' }, 'This item does not exist, or you are not allowed to edit it.'));
      main.focus();
      return;
    }
    throw error;
  }
  const [revisions, autosaves] = await Promise.all([
    allRevisions(base),
    api<Revision[]>(`${base}/autosaves`, { query: { context: 'edit' } }).then((r) => r.data),
  ]);
  const newest = revisions.at(-1);
  const fields = newest ? Object.keys((await api<RevisionDiff>(`${base}/revisions/${newest.id}/diff`)).data.fields) : FIELDS_BEFORE_ANY_REVISION[where.type];
  const [names, autosaveLog] = await Promise.all([authorNames([...revisions, ...autosaves].map((revision) => revision.author)), readAutosaveLog(base, autosaves, fields)]);
  const ctx: ItemContext = {
    ...where,
    base,
    ...loaded,
    revisions,
    autosaveIds: new Set(autosaves.map((autosave) => autosave.id)),
    fields,
    autosaveFields: autosaveLog.carried,
    names,
    reload: () => showItem(main, { ...where, params: new URLSearchParams(window.location.search) }),
  };

  const label = ITEM_TYPES[where.type];
  document.title = `${titleOf(ctx.item)} · History · CMS admin`;
  const lockSlot = h('div', { class: 'lock-slot' });
  const banner = h('div', { class: 'autosave-slot' });
  const timeline = h('section', { class: 'panel timeline', 'aria-labelledby': 'timeline-heading' });
  const compare = h('section', { class: 'panel compare', 'aria-labelledby': 'compare-heading', id: 'compare' });
  replaceContent(
    main,
    backLink(),
    h(
      'header',
      { class: 'item-head' },
      h('h1', {}, titleOf(ctx.item)),
      h('p', { class: 'muted' }, `${label} #${ctx.id} · `, h('span', { class: `status status-${ctx.item.status}` }, ctx.item.status), ` · last changed ${formatDateTime(fromGmt(ctx.item.modified_gmt))}`),
    ),
    lockSlot,
    banner,
    h('div', { class: 'columns' }, timeline, compare),
  );
  await Promise.all([showAutosaveBanner(banner, ctx, autosaves, autosaveLog), showEditLock(lockSlot, ctx), showTimeline(timeline, ctx), showCompare(compare, ctx, where.params)]);
}

function backLink(): HTMLElement {
  return h('p', { class: 'back' }, h('a', { href: '?', 'data-nav': true }, '← All items'));
}
