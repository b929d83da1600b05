import { findPostType, type PostTypeDef } from '../../registry/post-types.js';
import { type ArgSpecs } from '../../rest/args.js';
import { argsFromSchema } from '../../rest/item-schema.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type FieldSchema, type ItemSchema } from '../../rest/schema.js';
import { postTypeSchema, postWriteArgs } from '../posts/index.js';
import { MEDIA_TYPES } from './media.types.js';

const ALL = ['view', 'edit', 'embed'] as const;
const VIEW_EDIT = ['view', 'edit'] as const;
const EDIT = ['edit'] as const;

export const attachmentType: PostTypeDef = findPostType('attachment')!;

/** Statuses a media item is written with, and shown with (`inherit` unless private). */
const WRITE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const;

/**
 * The media item schema (`WP_REST_Attachments_Controller::get_item_schema`): the posts schema of
 * the `attachment` type, without password, plus the file's fields.
 */
function buildSchema(): ItemSchema {
  const base = postTypeSchema(attachmentType);
  const properties: Record<string, FieldSchema> = { ...base.properties };
  delete properties.password;
  delete properties.class_list;
  properties.status = {
    ...properties.status,
    enum: [...WRITE_STATUSES],
    response: { enum: ['inherit', 'private', 'trash'] },
  };
  properties.alt_text = { description: 'Alternative text to display when attachment is not displayed.', type: 'string', context: [...ALL] };
  properties.caption = {
    description: 'The attachment caption.',
    type: 'object',
    context: [...ALL],
    properties: {
      raw: { description: 'Caption for the attachment, as it exists in the database.', type: 'string', context: [...EDIT] },
      rendered: { description: 'HTML caption for the attachment, transformed for display.', type: 'string', context: [...ALL], readonly: true },
    },
  };
  properties.description = {
    description: 'The attachment description.',
    type: 'object',
    context: [...VIEW_EDIT],
    properties: {
      raw: { description: 'Description for the attachment, as it exists in the database.', type: 'string', context: [...EDIT] },
      rendered: { description: 'HTML description for the attachment, transformed for display.', type: 'string', context: [...VIEW_EDIT], readonly: true },
    },
  };
  properties.media_type = { description: 'Attachment type.', type: 'string', enum: ['image', 'file'], context: [...ALL], readonly: true };
  properties.mime_type = { description: 'The attachment MIME type.', type: 'string', context: [...ALL], readonly: true };
  properties.media_details = { description: 'Details about the media file, specific to its type.', type: 'object', context: [...ALL], readonly: true };
  properties.post = { description: 'The ID for the associated post of the attachment.', type: ['integer', 'null'], context: [...VIEW_EDIT] };
  properties.source_url = { description: 'URL to the original attachment file.', type: 'string', format: 'uri', context: [...ALL], readonly: true };
  properties.missing_image_sizes = {
    description: 'List of the missing image sizes of the attachment.',
    type: 'array',
    items: { type: 'string' },
    context: [...EDIT],
    readonly: true,
  };
  return { ...base, properties };
}

export const mediaSchema: ItemSchema = buildSchema();

/** Create and update arguments: the text fields also take a plain string, as for posts. */
export function mediaWriteArgs(mode: 'create' | 'update'): ArgSpecs<RestRequest> {
  const args: ArgSpecs<RestRequest> = { ...argsFromSchema(mediaSchema, mode) };
  const posts = postWriteArgs(attachmentType, mode);
  if (posts.title) args.title = posts.title;
  for (const field of ['caption', 'description'] as const) {
    args[field] = { description: args[field].description, type: ['string', 'object'], properties: { raw: { type: 'string' } } };
  }
  args.post = { description: 'The ID for the associated post of the attachment.', type: 'integer', minimum: 0 };
  return args;
}

export const MEDIA_TYPE_ENUM = [...MEDIA_TYPES];
