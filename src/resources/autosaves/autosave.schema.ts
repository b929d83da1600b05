import { type ItemSchema, URI_OR_EMPTY } from '../../rest/schema.js';
import { revisionSchema, type RevisionedType } from '../revisions/index.js';

/** An autosave is a revision with a preview link (`WP_REST_Autosaves_Controller::get_item_schema`). */
export function autosaveSchema(type: RevisionedType): ItemSchema {
  const schema = revisionSchema(type);
  schema.properties.preview_link = {
    description: 'Preview link for the post.',
    type: 'string',
    format: 'uri',
    context: ['edit'],
    readonly: true,
    // Items that cannot be viewed (menu items) have no preview: an empty string.
    response: URI_OR_EMPTY,
  };
  return schema;
}
