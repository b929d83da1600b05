import { type RestRequest } from '../../rest/rest-request.js';
import { type PluginDoc } from './plugin.model.js';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * WordPress's `_get_plugin_data_markup_translate` for the description: the text for display,
 * followed by ` <cite>By <author>.</cite>`, the author linked to its website when it has one.
 * The manifest's values are plain text, so they are escaped rather than filtered.
 */
function renderedDescription(doc: PluginDoc): string {
  const { description = '', author = '', author_uri: authorUri = '' } = doc.manifest;
  let rendered = escapeHtml(description);
  if (author) rendered += ` <cite>By ${authorUri ? `<a href="${escapeHtml(authorUri)}">${escapeHtml(author)}</a>` : escapeHtml(author)}.</cite>`;
  return rendered;
}

/** A plugin as WordPress shows it: every header field, `""` for those left empty, and a `self` link only. */
export function preparePlugin(doc: PluginDoc, req: RestRequest): Record<string, unknown> {
  const manifest = doc.manifest;
  const data: Record<string, unknown> = {
    plugin: doc._id,
    status: doc.status,
    name: manifest.name,
    plugin_uri: manifest.plugin_uri ?? '',
    author: manifest.author ?? '',
    author_uri: manifest.author_uri ?? '',
    description: { raw: manifest.description ?? '', rendered: renderedDescription(doc) },
    version: manifest.version,
    network_only: manifest.network_only ?? false,
    requires_cms: manifest.requires_cms ?? '',
    requires_runtime: manifest.requires_runtime ?? '',
    textdomain: manifest.textdomain ?? '',
  };
  if (req.wants('_links')) data._links = { self: [{ href: req.url(`/cms/v2/plugins/${doc._id}`) }] };
  return data;
}

/** WordPress's `search`: a case-sensitive substring of any of the plugin's header values. */
export function matchesSearch(doc: PluginDoc, search: string): boolean {
  return Object.values(doc.manifest).some((value) => typeof value === 'string' && value.includes(search));
}
