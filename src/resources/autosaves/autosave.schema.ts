import { type PostTypeDef } from '../../registry/post-types.js';
import { type ItemSchema } from '../../rest/schema.js';
import { revisionSchema } from '../revisions/revision.schema.js';

/** An autosave is a revision with a preview link (`WP_REST_Autosaves_Controller::get_item_schema`). */
export function autosaveSchema(type: PostTypeDef, parentSchema?: ItemSchema): ItemSchema {
  const schema = revisionSchema(type, parentSchema);
  schema.properties.preview_link = { description: 'Preview link for the post.', type: 'string', format: 'uri', context: ['edit'], readonly: true };
  return schema;
}
