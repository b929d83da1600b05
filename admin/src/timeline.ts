import { api } from './api.js';
import { dayKey, formatDateTime, formatDay, formatTime, fromGmt, h, replaceContent, svg } from './dom.js';
import { type ItemContext } from './item-context.js';
import { editorFields, EVENT_KINDS, fieldLabel, type HistoryEntry } from './model.js';
import { authorNames, nameOf } from './users.js';

const PER_PAGE = 50;
const CHART_DAYS = 30;

/** A change scheduled for the item (posts and pages): what `/scheduled-changes` answers in edit context. */
interface ScheduledChange {
  id: number;
  author: number;
  date_gmt: string;
  fields: Record<string, unknown>;
}

interface TimelineState {
  /** Pending scheduled changes, soonest first: the timeline ahead of now. */
  scheduled: ScheduledChange[];
  page: number;
  totalPages: number;
  entries: HistoryEntry[];
  author: string;
  kind: string;
  picked: number[];
}

/** The item's change log, newest first, a page of the history route at a time. */
export async function showTimeline(section: HTMLElement, ctx: ItemContext): Promise<void> {
  const [first, scheduled] = await Promise.all([historyPage(ctx, 1), scheduledChanges(ctx)]);
  const state: TimelineState = { scheduled, page: 1, totalPages: first.totalPages, entries: first.entries, author: '', kind: '', picked: [] };
  if (state.totalPages > 1) Object.assign(state, await historyPage(ctx, state.totalPages), { page: state.totalPages });
  await draw(section, ctx, state);
}

async function historyPage(ctx: ItemContext, page: number): Promise<{ entries: HistoryEntry[]; totalPages: number }> {
  const { data, headers } = await api<HistoryEntry[]>(`${ctx.base}/history`, { query: { per_page: PER_PAGE, page, _fields: 'seq,type,date_gmt,author,fields,revision,redacted,locked_by,scheduled_change' } });
  return { entries: data, totalPages: Number(headers.get('X-WP-TotalPages') ?? 1) };
}

async function scheduledChanges(ctx: ItemContext): Promise<ScheduledChange[]> {
  if (ctx.type !== 'posts' && ctx.type !== 'pages') return [];
  return (await api<ScheduledChange[]>(`${ctx.base}/scheduled-changes`, { query: { context: 'edit', per_page: 100, _fields: 'id,author,date_gmt,fields' } })).data;
}

async function draw(section: HTMLElement, ctx: ItemContext, state: TimelineState): Promise<void> {
  const names = await authorNames([...state.entries.flatMap(peopleOf), ...state.scheduled.map((change) => change.author)]);
  // Each revision (or autosave) the timeline can compare, with the state saved just before it.
  const comparable = new Map(ctx.revisions.map((revision, index) => [revision.id, ctx.revisions[index - 1]?.id]));
  const shown = state.entries
    .filter((entry) => (!state.author || String(entry.author) === state.author) && (!state.kind || entry.type === state.kind))
    .reverse();

  const authorFilter = h('select', { id: 'filter-author' }, h('option', { value: '' }, 'Everyone'), [...new Set(state.entries.map((e) => e.author))].map((id) => h('option', { value: String(id), selected: String(id) === state.author }, nameOf(names, id))));
  const kindFilter = h('select', { id: 'filter-kind' }, h('option', { value: '' }, 'Every kind'), Object.entries(EVENT_KINDS).map(([kind, label]) => h('option', { value: kind, selected: kind === state.kind }, label)));
  const refilter = () => {
    state.author = authorFilter.value;
    state.kind = kindFilter.value;
    void draw(section, ctx, state).then(() => (section.querySelector(`#${document.activeElement?.id || 'filter-kind'}`) as HTMLElement | null)?.focus());
  };
  authorFilter.addEventListener('change', refilter);
  kindFilter.addEventListener('change', refilter);

  const compareButton = h('button', { type: 'button', class: 'button', id: 'compare-picked', disabled: state.picked.length !== 2 }, 'Compare selected');
  compareButton.addEventListener('click', () => {
    const order = ctx.revisions.map((revision) => revision.id);
    const [from, to] = [...state.picked].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    document.dispatchEvent(new CustomEvent('compare', { detail: { from, to } }));
  });

  const days = new Map<string, HistoryEntry[]>();
  for (const entry of shown) {
    const key = dayKey(fromGmt(entry.date_gmt));
    days.set(key, [...(days.get(key) ?? []), entry]);
  }
  const list = h('div', { class: 'days' });
  // Ahead of now, on the first page only (the newest).
  if (state.scheduled.length && state.page === state.totalPages && !state.kind) {
    const ahead = state.scheduled.filter((change) => !state.author || String(change.author) === state.author).reverse();
    if (ahead.length) list.append(h('h3', { class: 'day' }, 'Scheduled'), h('ol', { class: 'events scheduled' }, ahead.map((change) => scheduledRow(change, names))));
  }
  for (const entries of days.values()) {
    list.append(
      h('h3', { class: 'day' }, formatDay(fromGmt(entries[0].date_gmt))),
      h('ol', { class: 'events' }, entries.map((entry) => eventRow(entry, names, comparable, state, compareButton))),
    );
  }
  if (!shown.length) list.append(h('p', { class: 'muted' }, 'No change matches these filters.'));
  const filtered = state.author || state.kind ? h('p', { class: 'muted filter-note' }, `${shown.length} of the ${state.entries.length} changes on this page match.`) : null;

  const pager = h('nav', { class: 'pager', 'aria-label': 'History pages' });
  if (state.totalPages > 1) {
    const go = (page: number) => async () => {
      Object.assign(state, await historyPage(ctx, page), { page, picked: [] });
      await draw(section, ctx, state);
      (section.querySelector('.pager button:not([disabled])') as HTMLElement | null)?.focus();
    };
    pager.append(
      h('button', { type: 'button', class: 'button', disabled: state.page >= state.totalPages, onclick: go(state.page + 1) }, '← Newer'),
      h('span', {}, `Page ${state.totalPages - state.page + 1} of ${state.totalPages}`),
      h('button', { type: 'button', class: 'button', disabled: state.page <= 1, onclick: go(state.page - 1) }, 'Older →'),
    );
  }

  replaceContent(
    section,
    h('h2', { id: 'timeline-heading' }, 'Timeline'),
    chart(state.entries),
    h(
      'div',
      { class: 'filters' },
      h('label', { for: 'filter-author' }, 'Author'),
      authorFilter,
      h('label', { for: 'filter-kind' }, 'Kind'),
      kindFilter,
      compareButton,
    ),
    filtered,
    list,
    pager,
  );
}

function eventRow(entry: HistoryEntry, names: Map<number, string>, comparable: Map<number, number | undefined>, state: TimelineState, compareButton: HTMLButtonElement): HTMLElement {
  const when = fromGmt(entry.date_gmt);
  const revision = entry.revision !== null && comparable.has(entry.revision) ? entry.revision : null;
  const before = revision === null ? undefined : comparable.get(revision);
  const details = [
    editorFields(entry.fields).length ? fieldList(editorFields(entry.fields)) : '',
    entry.redacted.length ? `erased: ${entry.redacted.map(fieldLabel).join(', ')}` : '',
    revision === null ? '' : `revision ${revision}`,
    entry.locked_by === undefined ? '' : `while ${nameOf(names, entry.locked_by)} held the lock`,
    entry.scheduled_change ? scheduledNote(entry.scheduled_change, names) : '',
  ].filter(Boolean);
  const row = h(
    'li',
    { class: `event event-${entry.type}` },
    revision === null ? h('span', { class: 'pick' }) : pickBox(entry, revision, state, compareButton),
    h('time', { datetime: when.toISOString() }, formatTime(when)),
    h('span', { class: `kind kind-${entry.type}` }, EVENT_KINDS[entry.type] ?? entry.type),
    h('span', { class: 'who' }, nameOf(names, entry.author)),
    details.length || before !== undefined
      ? h(
          'span',
          { class: 'fields' },
          details.join(' · '),
          before === undefined ? null : h('button', { type: 'button', class: 'link-button show-change', onclick: () => document.dispatchEvent(new CustomEvent('compare', { detail: { from: before, to: revision } })) }, 'show this change'),
        )
      : null,
  );
  return row;
}

/** The users an entry names: its author, and who held the lock or scheduled the change. */
const peopleOf = (entry: HistoryEntry) => [entry.author, ...(entry.locked_by === undefined ? [] : [entry.locked_by]), ...(entry.scheduled_change ? [entry.scheduled_change.scheduled_by] : [])];

function scheduledNote(change: NonNullable<HistoryEntry['scheduled_change']>, names: Map<number, string>): string {
  const meanwhile = editorFields(change.changed_meanwhile ?? []);
  return [
    `applied as scheduled by ${nameOf(names, change.scheduled_by)}`,
    meanwhile.length ? `${meanwhile.join(', ')} had changed since` : '',
  ].filter(Boolean).join('; ');
}

function scheduledRow(change: ScheduledChange, names: Map<number, string>): HTMLElement {
  const when = fromGmt(change.date_gmt);
  const fields = editorFields(Object.keys(change.fields ?? {}));
  return h(
    'li',
    { class: 'event event-scheduled', 'data-scheduled': change.id },
    h('span', { class: 'pick' }),
    h('time', { datetime: when.toISOString() }, formatDateTime(when)),
    h('span', { class: 'kind kind-scheduled' }, 'Scheduled'),
    h('span', { class: 'who' }, nameOf(names, change.author)),
    fields.length ? h('span', { class: 'fields' }, fieldList(fields)) : null,
  );
}

/** The entry's checkbox: two ticked entries can be compared. */
function pickBox(entry: HistoryEntry, revision: number, state: TimelineState, compareButton: HTMLButtonElement): HTMLElement {
  const id = `pick-${entry.seq}`;
  const box = h('input', { type: 'checkbox', id, value: String(revision), checked: state.picked.includes(revision) });
  box.addEventListener('change', () => {
    state.picked = box.checked ? [...state.picked.filter((r) => r !== revision), revision].slice(-2) : state.picked.filter((r) => r !== revision);
    for (const other of document.querySelectorAll<HTMLInputElement>('.events input[type=checkbox]')) other.checked = state.picked.includes(Number(other.value));
    compareButton.disabled = state.picked.length !== 2;
  });
  return h('span', { class: 'pick' }, box, h('label', { for: id, class: 'screen-reader-text' }, `Select revision ${revision} for comparison`));
}

// A creation sets every field; naming a few says enough.
const FIELDS_SHOWN = 5;

function fieldList(fields: string[]): string {
  return fields.length <= FIELDS_SHOWN ? fields.join(', ') : `${fields.slice(0, FIELDS_SHOWN).join(', ')} and ${fields.length - FIELDS_SHOWN} more`;
}

/** Edits per day over the last days of the shown page, as bars. */
function chart(entries: HistoryEntry[]): HTMLElement {
  const counts = new Map<string, number>();
  for (const entry of entries) {
    const key = dayKey(fromGmt(entry.date_gmt));
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const last = entries.length ? fromGmt(entries[entries.length - 1].date_gmt) : new Date();
  const days: [string, number][] = [];
  for (let back = CHART_DAYS - 1; back >= 0; back--) {
    const day = new Date(last.getFullYear(), last.getMonth(), last.getDate() - back);
    days.push([dayKey(day), counts.get(dayKey(day)) ?? 0]);
  }
  const most = Math.max(1, ...days.map(([, count]) => count));
  const width = 6;
  const height = 40;
  const graphic = svg('svg', { viewBox: `0 0 ${days.length * width} ${height}`, preserveAspectRatio: 'none', class: 'chart', role: 'img', 'aria-label': `Edits per day, last ${CHART_DAYS} days: ${entries.length} changes` });
  days.forEach(([day, count], index) => {
    const barHeight = count ? Math.max(2, (count / most) * (height - 2)) : 0;
    graphic.append(svg('rect', { x: index * width + 1, y: height - barHeight, width: width - 2, height: barHeight, class: 'bar' }, svg('title', {}, `${day}: ${count}`)));
  });
  return h('figure', { class: 'chart-box' }, graphic, h('figcaption', { class: 'muted' }, `Edits per day, ${days[0][0]} to ${days[days.length - 1][0]}`));
}
