import { type Deps } from '../../deps.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { encodeInstance, renderForm, renderWidget, WIDGET_TYPES } from '../widget-types/index.js';
import { INACTIVE_SIDEBAR, type WidgetDoc } from './widget.model.js';
import { fillWidgetPlaceholders, registeredSidebar } from './widget.sidebars.js';

/** `wp_render_widget` in its sidebar: empty in the inactive sidebar or in one the theme does not register. */
async function renderedWidget(deps: Deps, doc: WidgetDoc, instance: Record<string, unknown>): Promise<string> {
  const type = WIDGET_TYPES.find(doc.idBase);
  const sidebar = doc.sidebar === INACTIVE_SIDEBAR ? undefined : registeredSidebar(deps, doc.sidebar);
  if (!type || !sidebar) return '';
  const wrap = { ...sidebar, before_widget: fillWidgetPlaceholders(sidebar.before_widget, doc._id, type.classname) };
  return (await renderWidget(deps, type, instance, wrap)).trim();
}

export async function prepareWidget(doc: WidgetDoc, req: RestRequest, deps: Deps): Promise<Record<string, unknown>> {
  const type = WIDGET_TYPES.find(doc.idBase);
  const instance = JSON.parse(doc.instance) as Record<string, unknown>;
  const edit = req.context === 'edit';
  const data: Record<string, unknown> = { id: doc._id, id_base: doc.idBase, sidebar: doc.sidebar };
  if (req.wants('rendered')) data.rendered = await renderedWidget(deps, doc, instance);
  if (edit && req.wants('rendered_form')) data.rendered_form = type ? renderForm(type, doc.number, instance).trim() : null;
  if (edit && req.wants('instance')) data.instance = type ? await encodeInstance(deps.store.db, type, doc.instance) : null;
  if (req.wants('_links')) {
    const links: Links = {
      self: [{ href: req.url(`/cms/v2/widgets/${doc._id}`) }],
      collection: [{ href: req.url('/cms/v2/widgets') }],
      about: [{ href: req.url(`/cms/v2/widget-types/${doc.idBase}`), embeddable: true }],
      'https://api.w.org/sidebar': [{ href: req.url(`/cms/v2/sidebars/${encodeURIComponent(doc.sidebar)}/`) }],
    };
    data._links = links;
  }
  return data;
}
