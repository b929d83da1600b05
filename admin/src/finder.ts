import { api, ApiError } from './api.js';
import { formatDateTime, fromGmt, h, replaceContent } from './dom.js';
import { ITEM_TYPES, titleOf, type Item, type ItemType } from './model.js';

const RECENT = 20;

interface Found extends Item {
  itemType: ItemType;
}

interface Me {
  id: number;
  capabilities?: Record<string, boolean>;
}

// What a type's items need for someone else's to be editable (WordPress's capability names).
const OTHERS: Record<ItemType, string> = { posts: 'edit_others_posts', pages: 'edit_others_pages', 'menu-items': 'edit_theme_options' };

/**
 * Items of one type the caller may edit, newest change first. The API decides what is listed:
 * a type the caller may not list is skipped, items it may not read are not in the answer, and
 * one who may not edit others' items (as the API's `capabilities` say) is shown only theirs.
 */
async function findOf(type: ItemType, search: string, me: Me): Promise<Found[]> {
  const onlyMine = !me.capabilities?.[OTHERS[type]];
  if (onlyMine && type === 'menu-items') return [];
  try {
    const { data } = await api<Item[]>(type, {
      query: {
        author: onlyMine ? me.id : undefined,
        search: search || undefined,
        status: 'any',
        context: 'edit',
        orderby: 'modified',
        order: 'desc',
        per_page: RECENT,
        _fields: 'id,title,status,modified_gmt,author,link',
      },
    });
    return data.map((item) => ({ ...item, itemType: type }));
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403 || error.status === 400)) return [];
    throw error;
  }
}

export async function showFinder(main: HTMLElement, query: string): Promise<void> {
  document.title = 'History · CMS admin';
  const input = h('input', { type: 'search', id: 'find', name: 'q', value: query, autocomplete: 'off' });
  const form = h(
    'form',
    { class: 'finder', role: 'search' },
    h('label', { for: 'find' }, 'Search posts, pages and menu items'),
    h('div', { class: 'finder-row' }, input, h('button', { type: 'submit', class: 'button' }, 'Search')),
  );
  const results = h('section', { class: 'results', 'aria-live': 'polite', 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading…'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const params = new URLSearchParams();
    if (input.value.trim()) params.set('q', input.value.trim());
    window.history.pushState(null, '', `?${params}`);
    void listInto(results, input.value.trim());
  });
  replaceContent(main, h('h1', {}, 'Item history'), form, results);
  await listInto(results, query);
}

async function listInto(results: HTMLElement, query: string): Promise<void> {
  results.setAttribute('aria-busy', 'true');
  const me = (await api<Me>('users/me', { query: { context: 'edit', _fields: 'id,capabilities' } })).data;
  const found = (await Promise.all((Object.keys(ITEM_TYPES) as ItemType[]).map((type) => findOf(type, query, me))))
    .flat()
    .sort((a, b) => b.modified_gmt.localeCompare(a.modified_gmt))
    .slice(0, RECENT);
  const heading = h('h2', {}, query ? `Results for “${query}”` : 'Recent changes');
  if (!found.length) {
    replaceContent(results, heading, h('p', {}, query ? 'Nothing you may edit matches.' : 'Nothing you may edit has changed yet.'));
  } else {
    replaceContent(
      results,
      heading,
      h(
        'ul',
        { class: 'item-list' },
        found.map((item) =>
          h(
            'li',
            {},
            h('a', { href: `?type=${item.itemType}&id=${item.id}`, 'data-nav': true, class: 'item-link' }, titleOf(item)),
            h('span', { class: 'badge' }, ITEM_TYPES[item.itemType]),
            h('span', { class: `status status-${item.status}` }, item.status),
            h('span', { class: 'muted' }, `changed ${formatDateTime(fromGmt(item.modified_gmt))}`),
          ),
        ),
      ),
    );
  }
  results.setAttribute('aria-busy', 'false');
}
