import { type Links } from '../../rest/links.js';
import { clientInput } from '../../rest/client-input.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { can } from '../../auth/capabilities.js';
import { type GlobalStylesDoc } from './global-styles.model.js';

/** A stored client object, given back as it was sent (keys without a prototype behind them). */
export function storedObject(text: string): Record<string, unknown> {
  return clientInput(JSON.parse(text), 'json');
}

export function prepareGlobalStyles(doc: GlobalStylesDoc, req: RestRequest): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (req.wants('id')) data.id = String(doc._id);
  // WordPress's schema gives `title.raw` the contexts view, edit and embed.
  if (req.wants('title')) data.title = { raw: doc.title, rendered: doc.title };
  if (req.wants('settings')) data.settings = storedObject(doc.settings);
  if (req.wants('styles')) data.styles = storedObject(doc.styles);
  if (req.wants('_links')) {
    const self = req.url(`/cms/v2/global-styles/${doc._id}`);
    const links: Links = {
      self: [{ href: self }],
      about: [{ href: req.url('/cms/v2/types/cms_global_styles') }],
    };
    if (can(req.user, 'edit_theme_options')) {
      links['https://api.w.org/action-publish'] = [{ href: self }];
      links['https://api.w.org/action-edit-css'] = [{ href: self }];
    }
    data._links = links;
  }
  return data;
}
