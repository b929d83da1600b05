import { filterSavedValue, widgetFieldFilter } from '../../registry/saved-fields.js';

/** A widget's settings as the service stores them: only the fields its type declares. */
export type WidgetInstance = Record<string, string | number | boolean>;

/** One setting of a widget type: how its admin form shows it and how a submitted value is kept. */
export interface WidgetField {
  readonly name: string;
  readonly label: string;
  readonly kind: 'text' | 'html' | 'checkbox' | 'number';
  readonly default: string | number | boolean;
  /** `number` fields: the smallest value kept. */
  readonly minimum?: number;
}

/** A widget type (`WP_Widget` subclass): every type the service offers is multi-instance. */
export interface WidgetTypeDef {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly classname: string;
  /** `show_instance_in_rest`: whether `instance.raw` is shown and accepted. */
  readonly showInstanceInRest: boolean;
  readonly fields: readonly WidgetField[];
  /** The title shown when the instance has none (`Archives`, `Recent Posts`, ...). */
  readonly defaultTitle: string;
}

const title: WidgetField = { name: 'title', label: 'Title:', kind: 'text', default: '' };

// WordPress's core widgets of the same ids, with the settings their `update()` keeps.
const TYPES: readonly WidgetTypeDef[] = [
  {
    id: 'archives',
    name: 'Archives',
    description: 'A monthly archive of your site&#8217;s Posts.',
    classname: 'widget_archive',
    showInstanceInRest: true,
    fields: [title, { name: 'count', label: 'Show post counts', kind: 'checkbox', default: false }],
    defaultTitle: 'Archives',
  },
  {
    id: 'block',
    name: 'Block',
    description: 'A widget containing a block.',
    classname: 'widget_block',
    showInstanceInRest: true,
    fields: [{ name: 'content', label: 'Block contents:', kind: 'html', default: '' }],
    defaultTitle: '',
  },
  {
    id: 'categories',
    name: 'Categories',
    description: 'A list or dropdown of categories.',
    classname: 'widget_categories',
    showInstanceInRest: true,
    fields: [
      title,
      { name: 'count', label: 'Show post counts', kind: 'checkbox', default: false },
      { name: 'hierarchical', label: 'Show hierarchy', kind: 'checkbox', default: false },
    ],
    defaultTitle: 'Categories',
  },
  {
    id: 'custom_html',
    name: 'Custom HTML',
    description: 'Arbitrary HTML code.',
    classname: 'widget_custom_html',
    showInstanceInRest: true,
    fields: [title, { name: 'content', label: 'Content:', kind: 'html', default: '' }],
    defaultTitle: '',
  },
  {
    id: 'recent-posts',
    name: 'Recent Posts',
    description: 'Your site&#8217;s most recent Posts.',
    classname: 'widget_recent_entries',
    showInstanceInRest: true,
    fields: [
      title,
      { name: 'number', label: 'Number of posts to show:', kind: 'number', default: 5, minimum: 1 },
      { name: 'show_date', label: 'Display post date?', kind: 'checkbox', default: false },
    ],
    defaultTitle: 'Recent Posts',
  },
  {
    id: 'search',
    name: 'Search',
    description: 'A search form for your site.',
    classname: 'widget_search',
    showInstanceInRest: true,
    fields: [title],
    defaultTitle: '',
  },
  {
    id: 'text',
    name: 'Text',
    description: 'Arbitrary text.',
    classname: 'widget_text',
    showInstanceInRest: true,
    fields: [
      title,
      { name: 'text', label: 'Content:', kind: 'html', default: '' },
      { name: 'filter', label: 'Automatically add paragraphs', kind: 'checkbox', default: false },
    ],
    defaultTitle: '',
  },
];

/** The widget types the service offers, sorted by id as WordPress lists them. */
export interface WidgetTypeRegistry {
  readonly all: readonly WidgetTypeDef[];
  find(id: string): WidgetTypeDef | undefined;
}

export function widgetTypeRegistry(types: readonly WidgetTypeDef[]): WidgetTypeRegistry {
  const sorted = Object.freeze([...types].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  const byId = new Map(sorted.map((type) => [type.id, type]));
  return { all: sorted, find: (id) => byId.get(id) };
}

export const WIDGET_TYPES: WidgetTypeRegistry = widgetTypeRegistry(TYPES);

const scalar = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;

/**
 * The type's `update($new_instance, $old_instance)`: only declared fields are kept, each as its
 * kind says, text and HTML through the save filters the table of saved fields declares for the
 * setting (`sanitize_text_field`; `wp_kses_post` for a user without `unfiltered_html`). A checkbox is
 * on when the submission carries it with a value that is not false (a form sends `on`).
 */
export function updateInstance(type: WidgetTypeDef, submitted: Record<string, unknown>, unfiltered: boolean): WidgetInstance {
  const instance: WidgetInstance = {};
  for (const field of type.fields) {
    const value = Object.hasOwn(submitted, field.name) ? submitted[field.name] : undefined;
    switch (field.kind) {
      case 'checkbox':
        instance[field.name] = value !== undefined && value !== null && value !== false && value !== '' && value !== '0' && value !== 0;
        break;
      case 'number': {
        const number = Math.trunc(Number(scalar(value) ?? field.default));
        instance[field.name] = Number.isFinite(number) && number >= (field.minimum ?? 0) ? number : (field.default as number);
        break;
      }
      case 'text':
      case 'html':
        instance[field.name] = filterSavedValue(widgetFieldFilter(field.name), scalar(value) ?? '', unfiltered);
        break;
    }
  }
  return instance;
}

/** A stored instance read back: declared fields, each with its default when missing. */
export function withDefaults(type: WidgetTypeDef, instance: Record<string, unknown>): WidgetInstance {
  const out: WidgetInstance = {};
  for (const field of type.fields) {
    const value = Object.hasOwn(instance, field.name) ? instance[field.name] : undefined;
    out[field.name] = typeof value === typeof field.default ? (value as string | number | boolean) : field.default;
  }
  return out;
}
