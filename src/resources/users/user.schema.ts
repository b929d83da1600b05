import { type ItemSchema, URI_OR_EMPTY } from '../../rest/schema.js';
import { metaSchema } from '../../registry/meta.js';

const ALL = ['view', 'embed', 'edit'] as const;
const EDIT = ['edit'] as const;

/** A user, as WordPress's users controller describes it (`get_item_schema`). */
export const userSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'user',
  type: 'object',
  properties: {
    id: { description: 'Unique identifier for the user.', type: 'integer', context: [...ALL], readonly: true },
    username: { description: 'Login name for the user.', type: 'string', context: [...EDIT], required: true },
    // maxLength: the lengths of WordPress's columns (display_name, user_email, user_nicename), which
    // also keep each indexed value within what a database index row holds.
    name: { description: 'Display name for the user.', type: 'string', maxLength: 250, context: [...ALL] },
    first_name: { description: 'First name for the user.', type: 'string', context: [...EDIT] },
    last_name: { description: 'Last name for the user.', type: 'string', context: [...EDIT] },
    email: { description: 'The email address for the user.', type: 'string', format: 'email', maxLength: 100, context: [...EDIT], required: true },
    url: {
      description: 'URL of the user.',
      type: 'string',
      format: 'uri',
      context: [...ALL],
      // WordPress sends an empty string for a user without one.
      response: URI_OR_EMPTY,
    },
    description: { description: 'Description of the user.', type: 'string', context: [...ALL] },
    link: { description: 'Author URL of the user.', type: 'string', format: 'uri', context: [...ALL], readonly: true },
    locale: { description: 'Locale for the user.', type: 'string', enum: ['', 'en_US'], context: [...EDIT] },
    nickname: { description: 'The nickname for the user.', type: 'string', context: [...EDIT] },
    slug: { description: 'An alphanumeric identifier for the user.', type: 'string', maxLength: 50, context: [...ALL] },
    registered_date: { description: 'Registration date for the user.', type: 'string', format: 'date-time', context: [...EDIT], readonly: true },
    roles: { description: 'Roles assigned to the user.', type: 'array', items: { type: 'string' }, context: [...EDIT] },
    password: { description: 'Password for the user (never included).', type: 'string', context: [], required: true },
    capabilities: { description: 'All capabilities assigned to the user.', type: 'object', context: [...EDIT], readonly: true },
    extra_capabilities: { description: 'Any extra capabilities assigned to the user.', type: 'object', context: [...EDIT], readonly: true },
    avatar_urls: {
      description: 'Avatar URLs for the user.',
      type: 'object',
      context: [...ALL],
      readonly: true,
      properties: {
        '24': { description: 'Avatar URL with image size of 24 pixels.', type: 'string', format: 'uri', context: [...ALL] },
        '48': { description: 'Avatar URL with image size of 48 pixels.', type: 'string', format: 'uri', context: [...ALL] },
        '96': { description: 'Avatar URL with image size of 96 pixels.', type: 'string', format: 'uri', context: [...ALL] },
      },
    },
    meta: metaSchema('user', 'user', ['view', 'edit']),
  },
};
