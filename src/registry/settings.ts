import { type FieldSchema } from '../rest/schema.js';

/** A setting's value as the API reads and writes it. */
export type SettingValue = string | number | boolean | null;

/** A site setting as WordPress registers it for the REST API (`register_setting` with `show_in_rest`). */
export interface SettingDef<N extends string = string> {
  /** The REST name: `title`. */
  readonly name: N;
  /** The option it is stored as: `blogname`. */
  readonly option: string;
  readonly schema: Readonly<FieldSchema & { type: 'string' | 'integer' | 'boolean' }>;
  /** A fresh install's value, which `null` in an update restores. */
  readonly default: SettingValue;
  /** Set where the installer fills the value in: the site's URL, the first administrator's address. */
  readonly installDefault?: 'siteUrl' | 'adminEmail';
  /** Holds the id of an attachment, or 0 for none. */
  readonly attachment?: true;
}

const setting = <N extends string>(def: SettingDef<N>): SettingDef<N> => Object.freeze({ ...def, schema: Object.freeze({ ...def.schema }) });

/** The core settings in WordPress's registration order (`register_initial_settings`), then the site logo and icon. */
export const SETTINGS = Object.freeze([
  // The name the service's own pages carry (`SITE_NAME` in app.ts, which cannot be imported here without a cycle).
  setting({ name: 'title', option: 'blogname', schema: { type: 'string', title: 'Title', description: 'Site title.' }, default: 'CMS' }),
  setting({ name: 'description', option: 'blogdescription', schema: { type: 'string', title: 'Tagline', description: 'Site tagline.' }, default: '' }),
  setting({
    name: 'url',
    option: 'siteurl',
    schema: { type: 'string', format: 'uri', description: 'Site URL.' },
    default: null,
    installDefault: 'siteUrl',
  }),
  setting({
    name: 'email',
    option: 'admin_email',
    schema: { type: 'string', format: 'email', description: 'This address is used for admin purposes, like new user notification.' },
    default: null,
    installDefault: 'adminEmail',
  }),
  setting({ name: 'timezone', option: 'timezone_string', schema: { type: 'string', description: 'A city in the same timezone as you.' }, default: '' }),
  setting({ name: 'date_format', option: 'date_format', schema: { type: 'string', description: 'A date format for all date strings.' }, default: 'F j, Y' }),
  setting({ name: 'time_format', option: 'time_format', schema: { type: 'string', description: 'A time format for all time strings.' }, default: 'g:i a' }),
  setting({
    name: 'start_of_week',
    option: 'start_of_week',
    schema: { type: 'integer', description: 'A day number of the week that the week should start on.', minimum: 0, maximum: 6 },
    default: 1,
  }),
  setting({ name: 'language', option: 'WPLANG', schema: { type: 'string', description: 'Locale code.' }, default: 'en_US' }),
  setting({
    name: 'use_smilies',
    option: 'use_smilies',
    schema: { type: 'boolean', description: 'Convert emoticons like :-) and :-P to graphics on display.' },
    default: true,
  }),
  setting({ name: 'default_category', option: 'default_category', schema: { type: 'integer', description: 'Default post category.', minimum: 0 }, default: 1 }),
  setting({ name: 'default_post_format', option: 'default_post_format', schema: { type: 'string', description: 'Default post format.' }, default: '0' }),
  setting({
    name: 'posts_per_page',
    option: 'posts_per_page',
    schema: { type: 'integer', title: 'Maximum posts per page', description: 'Blog pages show at most.', minimum: 1 },
    default: 10,
  }),
  setting({
    name: 'show_on_front',
    option: 'show_on_front',
    schema: { type: 'string', title: 'Show on front', description: 'What to show on the front page', enum: ['posts', 'page'] },
    default: 'posts',
  }),
  setting({
    name: 'page_on_front',
    option: 'page_on_front',
    schema: { type: 'integer', title: 'Page on front', description: 'The ID of the page that should be displayed on the front page', minimum: 0 },
    default: 0,
  }),
  setting({
    name: 'page_for_posts',
    option: 'page_for_posts',
    schema: { type: 'integer', description: 'The ID of the page that should display the latest posts', minimum: 0 },
    default: 0,
  }),
  setting({
    name: 'default_ping_status',
    option: 'default_ping_status',
    schema: {
      type: 'string',
      description: 'Allow link notifications from other blogs (pingbacks and trackbacks) on new articles.',
      enum: ['open', 'closed'],
    },
    default: 'open',
  }),
  setting({
    name: 'default_comment_status',
    option: 'default_comment_status',
    schema: { type: 'string', title: 'Allow comments on new posts', description: 'Allow people to submit comments on new posts.', enum: ['open', 'closed'] },
    default: 'open',
  }),
  setting({ name: 'site_logo', option: 'site_logo', schema: { type: 'integer', title: 'Logo', description: 'Site logo.', minimum: 0 }, default: 0, attachment: true }),
  setting({ name: 'site_icon', option: 'site_icon', schema: { type: 'integer', title: 'Icon', description: 'Site icon.', minimum: 0 }, default: 0, attachment: true }),
]);

export type SettingName = (typeof SETTINGS)[number]['name'];

export function findSetting(name: string): SettingDef | undefined {
  return SETTINGS.find((def) => def.name === name);
}
