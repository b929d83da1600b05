import { type CommittedChange, type Deps, type WrittenPost } from '../../deps.js';
import { createMenuItem, itemsOfMenu } from '../menu-items/index.js';
import { autoAddMenus } from './menu.locations.js';

/** After a post write (a hook of the menus' manifest): a page it publishes joins the menus that add pages; a failure is logged, never the write's. */
export async function addPublishedPageToMenus(deps: Deps, { before, after }: CommittedChange<WrittenPost>): Promise<void> {
  try {
    await autoAddPage(deps, before, after);
  } catch (error) {
    deps.logger.warn({ err: error, item: after?._id }, 'a published page was not added to its menus');
  }
}

/**
 * WordPress's `_wp_auto_add_pages_to_menu`: a top-level page published for the first time joins,
 * at the end, every menu that adds pages automatically and does not show it yet.
 */
async function autoAddPage(deps: Deps, before: Pick<WrittenPost, 'status'> | null, page: WrittenPost | null): Promise<void> {
  if (!page || page.type !== 'page' || page.parent !== 0 || page.status !== 'publish' || before?.status === 'publish') return;
  const now = deps.clock().toISOString();
  for (const menu of await autoAddMenus(deps)) {
    const items = await itemsOfMenu(deps, menu);
    if (items.some((item) => item.type === 'post_type' && item.objectId === page._id)) continue;
    await createMenuItem(
      deps,
      {
        title: '', type: 'post_type', status: 'publish', parent: 0, attrTitle: '', classes: '', xfn: '', description: '',
        menuOrder: Math.max(0, ...items.map((item) => item.menuOrder)) + 1,
        object: 'page', objectId: page._id, target: '', url: '', menu, meta: '{}', author: page.author, date: now, modified: now,
      },
      page.author,
    );
  }
}
