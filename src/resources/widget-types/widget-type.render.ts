import { autop } from '@wordpress/autop';
import { parse } from '@wordpress/block-serialization-default-parser';
import { type Deps } from '../../deps.js';
import { renderContent, renderTitle } from '../../lib/content-render.js';
import { postsCollection, permalink } from '../posts/index.js';
import { termsCollection, type TermDoc } from '../terms/index.js';
import { withDefaults, type WidgetInstance, type WidgetTypeDef } from './widget-type.registry.js';

/** The sidebar's wrapping of each widget (`register_sidebar`'s arguments), placeholders filled. */
export interface WidgetWrap {
  readonly before_widget: string;
  readonly after_widget: string;
  readonly before_title: string;
  readonly after_title: string;
}

export const escapeHtml = (text: string) =>
  text.replace(/&(?!#\d+;|#x[\da-f]+;|[a-z][a-z\d]*;)/gi, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#039;');

/** `the_widget`'s defaults, which previews are wrapped in. */
export function previewWrap(type: WidgetTypeDef): WidgetWrap {
  return { before_widget: `<div class="widget ${type.classname}">`, after_widget: '</div>', before_title: '<h2 class="widgettitle">', after_title: '</h2>' };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
// The oldest month an archive list walks back to: one query a month, so a bound keeps it finite.
const MAX_ARCHIVE_MONTHS = 1200;
const PUBLISHED_POSTS = { type: 'post', status: 'publish' } as const;

/** `wp_get_archives( type=monthly )`: newest month first, each found with one index-served query. */
async function monthlyArchives(deps: Deps, showCount: boolean): Promise<string> {
  const posts = postsCollection(deps.store.db);
  let html = '';
  let before = '\uffff';
  for (let i = 0; i < MAX_ARCHIVE_MONTHS; i++) {
    const newest = await posts.findOne({ ...PUBLISHED_POSTS, date: { $lt: before } }, { sort: { date: -1, _id: -1 }, projection: { date: 1 } });
    if (!newest) break;
    const month = newest.date.slice(0, 7);
    const start = `${month}-01`;
    const [year, monthNumber] = month.split('-');
    let after = '';
    if (showCount) after = `&nbsp;(${await posts.countDocuments({ ...PUBLISHED_POSTS, date: { $gte: start, $lt: before } })})`;
    html += `\t<li><a href='${deps.siteUrl}/?m=${year}${monthNumber}'>${MONTHS[Number(monthNumber) - 1]} ${year}</a>${after}</li>\n`;
    before = start;
  }
  return html;
}

/** `wp_list_categories( title_li='' , hide_empty )`: categories with published posts, by name. */
async function categoryList(deps: Deps, instance: WidgetInstance): Promise<string> {
  const all = await termsCollection(deps.store.db).find({ taxonomy: 'category' }, { sort: { name: 1, _id: 1 } }).toArray();
  const shown = all.filter((term) => term.count > 0);
  if (shown.length === 0) return '<li class="cat-item-none">No categories</li>';
  const item = (term: TermDoc, children: string) =>
    `\t<li class="cat-item cat-item-${term._id}"><a href="${deps.siteUrl}/?cat=${term._id}">${term.name}</a>${instance.count ? ` (${term.count})` : ''}\n${children}</li>\n`;
  if (!instance.hierarchical) return shown.map((term) => item(term, '')).join('');
  const ids = new Set(shown.map((term) => term._id));
  const level = (parent: number, seen: Set<number>): string =>
    shown
      .filter((term) => (ids.has(term.parent) ? term.parent : 0) === parent && !seen.has(term._id))
      .map((term) => {
        const children = level(term._id, new Set([...seen, term._id]));
        return item(term, children ? `<ul class='children'>\n${children}</ul>\n` : '');
      })
      .join('');
  return level(0, new Set());
}

const dateText = (date: string) => `${MONTHS[Number(date.slice(5, 7)) - 1]} ${Number(date.slice(8, 10))}, ${date.slice(0, 4)}`;

/** The newest published posts, or nothing when there is none (WordPress then prints no widget at all). */
async function recentPosts(deps: Deps, instance: WidgetInstance): Promise<string | null> {
  const posts = await postsCollection(deps.store.db)
    .find(PUBLISHED_POSTS, { sort: { date: -1, _id: -1 }, limit: Number(instance.number), projection: { _id: 1, type: 1, title: 1, date: 1 } })
    .toArray();
  if (posts.length === 0) return null;
  const items = posts.map((post) => {
    const title = renderTitle(post.title) || '(no title)';
    const date = instance.show_date ? `\n<span class="post-date">${dateText(post.date)}</span>` : '';
    return `<li>\n<a href="${permalink(deps.siteUrl, post)}">${title}</a>${date}\n</li>\n`;
  });
  return `<ul>\n${items.join('')}</ul>\n`;
}

function searchForm(deps: Deps): string {
  return (
    `<form role="search" method="get" class="search-form" action="${deps.siteUrl}/">` +
    '<label><span class="screen-reader-text">Search for:</span>' +
    '<input type="search" class="search-field" placeholder="Search &hellip;" value="" name="s" /></label>' +
    '<input type="submit" class="search-submit" value="Search" /></form>'
  );
}

// `WP_Widget_Block::get_dynamic_classname`: the first block names the widget's class.
const BLOCK_CLASSNAMES: Record<string, string> = {
  'core/paragraph': 'widget_block widget_text',
  'core/calendar': 'widget_block widget_calendar',
  'core/search': 'widget_block widget_search',
  'core/html': 'widget_block widget_custom_html',
  'core/archives': 'widget_block widget_archive',
  'core/latest-posts': 'widget_block widget_recent_entries',
  'core/latest-comments': 'widget_block widget_recent_comments',
  'core/tag-cloud': 'widget_block widget_tag_cloud',
  'core/categories': 'widget_block widget_categories',
  'core/audio': 'widget_block widget_media widget_media_audio',
  'core/video': 'widget_block widget_media widget_media_video',
  'core/image': 'widget_block widget_media widget_media_image',
  'core/gallery': 'widget_block widget_media widget_media_gallery',
  'core/rss': 'widget_block widget_rss',
};

function blockClassname(content: string): string {
  const first = parse(content).find((block) => block.blockName !== null);
  return (first?.blockName && Object.hasOwn(BLOCK_CLASSNAMES, first.blockName) ? BLOCK_CLASSNAMES[first.blockName] : 'widget_block');
}

/**
 * The type's `widget( $args, $instance )`: the front-end HTML, wrapped as the sidebar wraps its
 * widgets, rendered from the service's own posts and categories. Empty when the type prints nothing.
 */
export async function renderWidget(deps: Deps, type: WidgetTypeDef, stored: Record<string, unknown>, wrap: WidgetWrap): Promise<string> {
  const instance = withDefaults(type, stored);
  const heading = () => {
    const title = String(instance.title ?? '') || type.defaultTitle;
    return title ? `${wrap.before_title}${escapeHtml(title)}${wrap.after_title}` : '';
  };
  let body: string | null;
  switch (type.id) {
    case 'block': {
      const content = String(instance.content);
      const before = wrap.before_widget.replace('widget_block', blockClassname(content));
      return `${before}${renderContent(content)}${wrap.after_widget}`;
    }
    case 'text': {
      const text = String(instance.text);
      body = `<div class="textwidget">${instance.filter ? autop(text) : text}</div>`;
      break;
    }
    case 'custom_html':
      body = `<div class="textwidget custom-html-widget">${String(instance.content)}</div>`;
      break;
    case 'search':
      body = searchForm(deps);
      break;
    case 'archives':
      body = `<ul>\n${await monthlyArchives(deps, Boolean(instance.count))}</ul>\n`;
      break;
    case 'categories':
      body = `<ul>\n${await categoryList(deps, instance)}</ul>\n`;
      break;
    case 'recent-posts':
      body = await recentPosts(deps, instance);
      break;
    default:
      body = null;
  }
  if (body === null) return '';
  return `${wrap.before_widget}${heading()}${body}${wrap.after_widget}`;
}

/** The type's admin `form( $instance )`, its inputs named as `form_data` sends them back: `widget-<id_base>[<number>][<field>]`. */
export function renderForm(type: WidgetTypeDef, number: number, stored: Record<string, unknown>): string {
  const instance = withDefaults(type, stored);
  return type.fields
    .map((field) => {
      const id = `widget-${type.id}-${number}-${field.name}`;
      const name = `widget-${type.id}[${number}][${field.name}]`;
      const value = escapeHtml(String(instance[field.name]));
      switch (field.kind) {
        case 'checkbox':
          return `<p><input class="checkbox" type="checkbox" id="${id}" name="${name}"${instance[field.name] ? " checked='checked'" : ''} /><label for="${id}">${field.label}</label></p>`;
        case 'number':
          return `<p><label for="${id}">${field.label}</label><input class="tiny-text" id="${id}" name="${name}" type="number" step="1" min="${field.minimum ?? 0}" value="${value}" size="3" /></p>`;
        case 'html':
          return `<p><label for="${id}">${field.label}</label><textarea class="widefat code" rows="16" cols="20" id="${id}" name="${name}">${value}</textarea></p>`;
        default:
          return `<p><label for="${id}">${field.label}</label><input class="widefat" id="${id}" name="${name}" type="text" value="${value}" /></p>`;
      }
    })
    .join('\n');
}
