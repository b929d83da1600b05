import { type Deps } from '../../deps.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type JsonObject, type Theme } from '../../themes/themes.js';
import { ensureGlobalStyles, findGlobalStylesOfTheme } from '../global-styles/index.js';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function path(object: JsonObject, ...keys: string[]): unknown {
  let value: unknown = object;
  for (const key of keys) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as JsonObject)[key];
  }
  return value;
}

/** A `theme.json` preset list as `add_theme_support` shows it, or `false` when the theme has none. */
function presets(list: unknown, value: string, as: string = value): JsonObject[] | false {
  if (!Array.isArray(list) || list.length === 0) return false;
  return list.map((item: JsonObject) => ({ name: item.name ?? item.slug, slug: item.slug, [as]: item[value] }));
}

/**
 * What a block theme supports (`_add_default_theme_supports` and the editor settings theme.json
 * gives): the defaults WordPress adds for block themes, and the presets of `theme.json`.
 */
export function themeSupports(theme: Theme): JsonObject {
  const block = theme.isBlockTheme;
  const { settings } = theme;
  return {
    'align-wide': block || path(settings, 'layout', 'wideSize') !== undefined,
    'automatic-feed-links': block,
    'block-templates': block,
    'block-template-parts': block,
    'disable-custom-colors': path(settings, 'color', 'custom') === false,
    'disable-custom-font-sizes': path(settings, 'typography', 'customFontSize') === false,
    'disable-custom-gradients': path(settings, 'color', 'customGradient') === false,
    'editor-color-palette': presets(path(settings, 'color', 'palette'), 'color'),
    'editor-font-sizes': presets(path(settings, 'typography', 'fontSizes'), 'size'),
    'editor-gradient-presets': presets(path(settings, 'color', 'gradients'), 'gradient'),
    'editor-styles': block,
    html5: block ? ['comment-form', 'comment-list', 'search-form', 'gallery', 'caption', 'style', 'script'] : false,
    'post-thumbnails': block,
    'responsive-embeds': block,
    'title-tag': false,
    'wp-block-styles': false,
  };
}

const rawRendered = (raw: string, rendered: string = raw) => ({ raw, rendered });

/** `prepare_item_for_response` of WordPress's themes controller. */
export async function prepareTheme(theme: Theme, req: RestRequest, deps: Deps): Promise<JsonObject> {
  const active = theme.stylesheet === deps.themes.active.stylesheet;
  const uri = `${deps.siteUrl}/themes/${encodeURIComponent(theme.stylesheet)}`;
  const wants = (field: string) => req.wants(field);
  const data: JsonObject = {};
  if (wants('stylesheet')) data.stylesheet = theme.stylesheet;
  if (wants('stylesheet_uri')) data.stylesheet_uri = uri;
  if (wants('template')) data.template = theme.stylesheet;
  if (wants('template_uri')) data.template_uri = uri;
  if (wants('author')) {
    data.author = rawRendered(theme.author, theme.authorUri ? `<a href="${escapeHtml(theme.authorUri)}">${escapeHtml(theme.author)}</a>` : escapeHtml(theme.author));
  }
  if (wants('author_uri')) data.author_uri = rawRendered(theme.authorUri);
  if (wants('description')) data.description = rawRendered(theme.description, escapeHtml(theme.description));
  if (wants('is_block_theme')) data.is_block_theme = theme.isBlockTheme;
  if (wants('name')) data.name = rawRendered(theme.name, escapeHtml(theme.name));
  if (wants('requires_runtime')) data.requires_runtime = theme.requiresRuntime;
  if (wants('requires_cms')) data.requires_cms = theme.requiresCms;
  if (wants('screenshot')) data.screenshot = '';
  if (wants('tags')) data.tags = { raw: [...theme.tags], rendered: theme.tags.map(escapeHtml).join(', ') };
  if (wants('textdomain')) data.textdomain = theme.textdomain;
  if (wants('theme_supports')) data.theme_supports = themeSupports(theme);
  if (wants('theme_uri')) data.theme_uri = rawRendered(theme.themeUri);
  if (wants('version')) data.version = theme.version;
  if (wants('status')) data.status = active ? 'active' : 'inactive';
  if (req.wants('_links')) data._links = await themeLinks(theme, active, req, deps);
  return data;
}

async function themeLinks(theme: Theme, active: boolean, req: RestRequest, deps: Deps): Promise<Links> {
  const links: Links = {
    self: [{ href: req.url(`/cms/v2/themes/${theme.stylesheet}`) }],
    collection: [{ href: req.url('/cms/v2/themes') }],
  };
  // As in WordPress, asking for the active theme creates its user global styles record when missing.
  const styles = active ? await ensureGlobalStyles(deps, theme.stylesheet) : await findGlobalStylesOfTheme(deps, theme.stylesheet);
  if (styles) links['https://api.w.org/user-global-styles'] = [{ href: req.url(`/cms/v2/global-styles/${styles._id}`) }];
  return links;
}
