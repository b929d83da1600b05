import { type Deps } from '../../deps.js';
import { formatSiteDate } from '../../lib/site-dates.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { siteTimezone } from '../settings/index.js';
import { can } from '../../auth/capabilities.js';
import { answerCarriesLock, currentLock, lockFields, lockKey } from '../locks/index.js';
import { type TemplateKind } from '../../themes/themes.js';
import { type TemplateView } from './template.view.js';

/** `block_version`: 1 when the content holds blocks. */
const blockVersion = (content: string) => (content.includes('<!-- wp:') ? 1 : 0);

/** The route base of a kind: `templates` or `template-parts`. */
export const templateBase = (kind: TemplateKind) => (kind === 'cms_template' ? 'templates' : 'template-parts');

/** The base route of a kind: `/cms/v2/templates` or `/cms/v2/template-parts`. */
export const templateRoute = (view: Pick<TemplateView, 'type'>) => `/cms/v2/${templateBase(view.type)}`;

/** `prepare_item_for_response` of WordPress's templates controller. Content has no `rendered`. */
export async function prepareTemplate(view: TemplateView, req: RestRequest, deps: Deps): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = {};
  const wants = (field: string) => req.wants(field);
  if (wants('id')) data.id = view.id;
  if (wants('theme')) data.theme = view.theme;
  if (wants('content')) data.content = { raw: view.content, block_version: blockVersion(view.content) };
  if (wants('slug')) data.slug = view.slug;
  if (wants('source')) data.source = view.source;
  if (wants('origin')) data.origin = view.origin;
  if (wants('type')) data.type = view.type;
  if (wants('description')) data.description = view.description;
  if (wants('title')) data.title = { raw: view.title, rendered: view.title };
  if (wants('status')) data.status = view.status;
  if (wants('cms_id')) data.cms_id = view.cmsId;
  if (wants('has_theme_file')) data.has_theme_file = view.hasThemeFile;
  if (wants('author')) data.author = view.author;
  if (wants('modified')) data.modified = view.modified ? formatSiteDate(view.modified, await siteTimezone(deps)) : null;
  if (view.type === 'cms_template' && wants('is_custom')) data.is_custom = view.isCustom;
  if (view.type === 'cms_template_part' && wants('area')) data.area = view.area;
  // A theme's file, never customized, has no lock: its lock routes answer only for a stored template.
  const lockable = view.doc !== undefined && view.doc !== null && can(req.user, 'edit_theme_options');
  if (req.context === 'edit' && wants('lock') && answerCarriesLock(req)) {
    const lock = lockable ? await currentLock(deps, lockKey(view.type, view.id)) : null;
    data.lock = lock ? lockFields(lock) : null;
  }
  if (req.wants('_links')) {
    const route = templateRoute(view);
    const links: Links = {
      self: [{ href: req.url(`${route}/${view.id}`) }],
      collection: [{ href: req.url(route) }],
      about: [{ href: req.url(`/cms/v2/types/${view.type}`) }],
    };
    if (view.author) links.author = [{ href: req.url(`/cms/v2/users/${view.author}`), embeddable: true }];
    if (lockable) links.lock = [{ href: req.url(`${route}/${view.id}/lock`), embeddable: true }];
    data._links = links;
  }
  return data;
}
