import { type Deps } from '../../deps.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type SidebarDef } from '../../themes/themes.js';
import { WIDGET_TYPES } from '../widget-types/index.js';
import { INACTIVE_SIDEBAR, type WidgetDoc } from '../widgets/index.js';

/**
 * A sidebar with the ids of its widgets, in order. `active` for a sidebar of the active theme,
 * unless it is a block theme, whose templates show no sidebar (`wp_is_block_theme`).
 */
export function prepareSidebar(sidebar: SidebarDef, widgets: readonly WidgetDoc[], req: RestRequest, deps: Deps): Record<string, unknown> {
  const active = sidebar.id !== INACTIVE_SIDEBAR && !deps.themes.active.isBlockTheme;
  const data: Record<string, unknown> = {
    id: sidebar.id,
    name: sidebar.name,
    description: sidebar.description,
    class: sidebar.class,
    before_widget: sidebar.before_widget,
    after_widget: sidebar.after_widget,
    before_title: sidebar.before_title,
    after_title: sidebar.after_title,
    status: active ? 'active' : 'inactive',
    widgets: widgets.filter((doc) => WIDGET_TYPES.find(doc.idBase) !== undefined).map((doc) => doc._id),
  };
  if (req.wants('_links')) {
    const links: Links = {
      collection: [{ href: req.url('/cms/v2/sidebars') }],
      self: [{ href: req.url(`/cms/v2/sidebars/${sidebar.id}`) }],
      'https://api.w.org/widget': [{ href: req.url(`/cms/v2/widgets?sidebar=${sidebar.id}`), embeddable: true }],
    };
    data._links = links;
  }
  return data;
}
