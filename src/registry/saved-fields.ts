import { can, type Principal } from '../auth/capabilities.js';
import { SAVE_FILTERS, type SaveFilterName } from '../lib/save-filters.js';

/**
 * One free-text field a client writes, and what WordPress does to it before storing it. Fields a
 * schema already narrows to a format, an enum or a pattern (slugs, emails, statuses, dates, ids,
 * locales, passwords) are not listed: they hold no markup. A post's `template` is checked against
 * the theme's templates instead (`rest_invalid_param`), as WordPress's `check_template` does.
 */
export interface SavedField {
  /** The REST resource, by its route base: `posts`, `media`, `categories`, `users`, `settings` ... */
  readonly resource: string;
  /**
   * The request parameter, a dotted path into the parameters (`meta.footnotes`). A value sent as
   * `{ raw }` (title, content ...) has its `raw` filtered; a list has each string in it filtered.
   */
  readonly param: string;
  /** The WordPress hook or function that runs the filters (`title_save_pre`, `pre_user_url` ...). */
  readonly hook: string;
  /** Run for every caller, in this order (WordPress's default filters). */
  readonly everyone?: readonly SaveFilterName[];
  /** Then run for callers without `unfiltered_html` (WordPress's `kses_init_filters` and kin). */
  readonly withoutUnfilteredHtml?: readonly SaveFilterName[];
  /** Where the stored value shows: in `edit` context, and to anonymous readers (`view`), as response paths. */
  readonly shown: { readonly edit?: string; readonly view?: string };
  /**
   * Who applies the filters: the REST layer on the request's parameters (the default), or the
   * widget type's `update()`, which alone can read a widget's settings in the three forms a
   * request may send them (`instance.raw`, `instance.encoded`, `form_data`), as in WordPress.
   */
  readonly appliedBy?: 'widget-update';
}

type Row = Omit<SavedField, 'resource'>;

// `title_save_pre` trims for everyone (default-filters.php) and runs `wp_filter_kses` for callers
// without unfiltered_html; `content_save_pre` and `excerpt_save_pre` run `wp_filter_post_kses`.
const TITLE = { hook: 'title_save_pre', everyone: ['trim'], withoutUnfilteredHtml: ['wp_filter_kses'] } as const;
const CONTENT = { hook: 'content_save_pre', withoutUnfilteredHtml: ['wp_filter_post_kses'] } as const;
const EXCERPT = { hook: 'excerpt_save_pre', withoutUnfilteredHtml: ['wp_filter_post_kses'] } as const;
// `pre_term_name`, `pre_user_display_name`, `pre_user_first_name` ...: for everyone.
const NAME = { everyone: ['sanitize_text_field', 'wp_filter_kses', '_wp_specialchars'] } as const;

const postRows = (): Row[] => [
  { param: 'title', ...TITLE, shown: { edit: 'title.raw', view: 'title.rendered' } },
  { param: 'content', ...CONTENT, shown: { edit: 'content.raw', view: 'content.rendered' } },
  { param: 'excerpt', ...EXCERPT, shown: { edit: 'excerpt.raw', view: 'excerpt.rendered' } },
  // WordPress 6.3.2's `_wp_footnotes_kses_init`: only for callers without unfiltered_html.
  { param: 'meta.footnotes', hook: 'sanitize_post_meta_footnotes', withoutUnfilteredHtml: ['_wp_filter_post_meta_footnotes'], shown: { edit: 'meta.footnotes', view: 'meta.footnotes' } },
];

const termRows = (): Row[] => [
  { param: 'name', hook: 'pre_term_name', ...NAME, shown: { edit: 'name', view: 'name' } },
  { param: 'description', hook: 'pre_term_description', everyone: ['wp_filter_kses'], shown: { edit: 'description', view: 'description' } },
];

const templateRows = (): Row[] => [
  { param: 'title', ...TITLE, shown: { edit: 'title.raw' } },
  { param: 'content', ...CONTENT, shown: { edit: 'content.raw' } },
  // A template's description is its post excerpt.
  { param: 'description', ...EXCERPT, shown: { edit: 'description' } },
];

const widgetText = (param: string): Row => ({ param, hook: 'WP_Widget::update', everyone: ['sanitize_text_field'], shown: { edit: `instance.raw.${param.split('.').pop()}` }, appliedBy: 'widget-update' });
const widgetHtml = (param: string): Row => ({ param, hook: 'WP_Widget::update', withoutUnfilteredHtml: ['wp_filter_post_kses'], shown: { edit: `instance.raw.${param.split('.').pop()}` }, appliedBy: 'widget-update' });

const TABLE: Record<string, Row[]> = {
  posts: postRows(),
  pages: postRows(),
  media: [
    // Also the title taken from an upload's file name when none is sent.
    { param: 'title', ...TITLE, shown: { edit: 'title.raw', view: 'title.rendered' } },
    { param: 'caption', ...EXCERPT, shown: { edit: 'caption.raw', view: 'caption.rendered' } },
    { param: 'description', ...CONTENT, shown: { edit: 'description.raw', view: 'description.rendered' } },
    // The attachments controller stores `_wp_attachment_image_alt` through `sanitize_text_field`.
    { param: 'alt_text', hook: 'WP_REST_Attachments_Controller', everyone: ['sanitize_text_field'], shown: { edit: 'alt_text', view: 'alt_text' } },
  ],
  'menu-items': [
    { param: 'title', ...TITLE, shown: { edit: 'title.raw' } },
    // `wp_update_nav_menu_item`: the attribute title is the post excerpt, the description its content.
    { param: 'attr_title', ...EXCERPT, shown: { edit: 'attr_title' } },
    { param: 'description', ...CONTENT, shown: { edit: 'description' } },
    { param: 'url', hook: 'wp_update_nav_menu_item', everyone: ['esc_url_raw'], shown: { edit: 'url' } },
    { param: 'classes', hook: 'wp_update_nav_menu_item', everyone: ['sanitize_html_class'], shown: { edit: 'classes' } },
    { param: 'xfn', hook: 'wp_update_nav_menu_item', everyone: ['sanitize_html_class'], shown: { edit: 'xfn' } },
  ],
  categories: termRows(),
  tags: termRows(),
  menus: termRows(),
  users: [
    { param: 'name', hook: 'pre_user_display_name', ...NAME, shown: { edit: 'name', view: 'name' } },
    { param: 'first_name', hook: 'pre_user_first_name', ...NAME, shown: { edit: 'first_name' } },
    { param: 'last_name', hook: 'pre_user_last_name', ...NAME, shown: { edit: 'last_name' } },
    { param: 'nickname', hook: 'pre_user_nickname', ...NAME, shown: { edit: 'nickname' } },
    { param: 'description', hook: 'pre_user_description', everyone: ['wp_filter_kses'], shown: { edit: 'description', view: 'description' } },
    { param: 'url', hook: 'pre_user_url', everyone: ['wp_strip_all_tags', 'esc_url_raw', 'wp_filter_kses'], shown: { edit: 'url', view: 'url' } },
  ],
  'application-passwords': [
    // The controller's `sanitize_callback` for `name`.
    { param: 'name', hook: 'WP_REST_Application_Passwords_Controller', everyone: ['sanitize_text_field'], shown: { edit: 'name' } },
  ],
  templates: templateRows(),
  'template-parts': templateRows(),
  'global-styles': [{ param: 'title', ...TITLE, shown: { edit: 'title.raw' } }],
  widgets: [
    widgetText('instance.raw.title'),
    widgetHtml('instance.raw.text'),
    widgetHtml('instance.raw.content'),
  ],
  // `sanitize_option`, for everyone.
  settings: [
    { param: 'title', hook: 'sanitize_option_blogname', everyone: ['esc_html'], shown: { edit: 'title' } },
    { param: 'description', hook: 'sanitize_option_blogdescription', everyone: ['esc_html'], shown: { edit: 'description' } },
    { param: 'url', hook: 'sanitize_option_siteurl', everyone: ['esc_url_raw'], shown: { edit: 'url' } },
    { param: 'date_format', hook: 'sanitize_option_date_format', everyone: ['strip_tags', 'wp_kses_data'], shown: { edit: 'date_format' } },
    { param: 'time_format', hook: 'sanitize_option_time_format', everyone: ['strip_tags', 'wp_kses_data'], shown: { edit: 'time_format' } },
  ],
};

/** Every free-text field of every resource, with WordPress's save filters for it: the one table. */
export const SAVED_FIELDS: readonly SavedField[] = Object.freeze(
  Object.entries(TABLE).flatMap(([resource, rows]) => rows.map((row) => Object.freeze({ resource, ...row }))),
);

export function savedFieldsOf(resource: string): readonly SavedField[] {
  return SAVED_FIELDS.filter((field) => field.resource === resource);
}

/**
 * Whom a value is filtered for: the least trusted of its writers. A value written by someone
 * without `unfiltered_html` keeps that filtering whoever stores it again (a revision restored).
 */
const unfilteredFor = (writers: readonly Principal[]) => writers.every((writer) => can(writer, 'unfiltered_html'));

/** One field's filters on one string, for writers who do or do not have `unfiltered_html`. */
export function filterSavedValue(field: SavedField, value: string, unfiltered: boolean): string {
  let out = value;
  for (const name of field.everyone ?? []) out = SAVE_FILTERS[name](out, field.hook);
  if (!unfiltered) for (const name of field.withoutUnfilteredHtml ?? []) out = SAVE_FILTERS[name](out, field.hook);
  return out;
}

/** A string, a `{ raw }` object or a list of strings, with each string filtered. */
function filterShape(field: SavedField, value: unknown, unfiltered: boolean): unknown {
  if (typeof value === 'string') return filterSavedValue(field, value, unfiltered);
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? filterSavedValue(field, item, unfiltered) : item));
  if (typeof value === 'object' && value !== null && typeof (value as { raw?: unknown }).raw === 'string') {
    return { ...value, raw: filterSavedValue(field, (value as { raw: string }).raw, unfiltered) };
  }
  return value;
}

/**
 * Runs the table's filters of `resource` over `values` in place (request parameters, or the fields
 * of a stored revision being made current), for values written by `writers`. Only the paths the
 * table names are touched, and only where the values hold them.
 */
export function filterSaved(resource: string, values: Record<string, unknown>, writers: readonly Principal[]): void {
  const unfiltered = unfilteredFor(writers);
  for (const field of savedFieldsOf(resource)) {
    if (field.appliedBy) continue;
    const path = field.param.split('.');
    let holder: unknown = values;
    for (const key of path.slice(0, -1)) holder = typeof holder === 'object' && holder !== null && Object.hasOwn(holder, key) ? (holder as Record<string, unknown>)[key] : undefined;
    const last = path[path.length - 1];
    if (typeof holder !== 'object' || holder === null || !Object.hasOwn(holder, last)) continue;
    const target = holder as Record<string, unknown>;
    target[last] = filterShape(field, target[last], unfiltered);
  }
}

/** An endpoint's `saves`: the request's parameters of `resource` through the table, for the caller. */
export function savesOf(resource: string): (params: Record<string, unknown>, user: Principal) => void {
  if (!savedFieldsOf(resource).length) throw new Error(`No saved fields are declared for ${resource}`);
  return (params, user) => filterSaved(resource, params, [user]);
}

/** A widget field's filters, as the widget type's `update()` applies them (`appliedBy: 'widget-update'`). */
export function widgetFieldFilter(name: string): SavedField {
  const field = SAVED_FIELDS.find((candidate) => candidate.resource === 'widgets' && candidate.param === `instance.raw.${name}`);
  if (!field) throw new Error(`No saved field is declared for the widget setting ${name}`);
  return field;
}
