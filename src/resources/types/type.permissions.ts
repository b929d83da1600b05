import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { defineAuthError, defineRestError } from '../../rest/errors.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type Permission } from '../../rest/route.js';
import { findPostType, POST_TYPES, type PostTypeDef } from '../../registry/post-types.js';
import { ForbiddenPostTypeContext } from '../post-errors.js';

export const TypeInvalid = defineRestError('rest_type_invalid', 'Invalid post type.', 404);
export const CannotReadType = defineAuthError('rest_cannot_read_type', 'Cannot view post type.');
export const CannotViewTypes = defineAuthError('rest_cannot_view', 'Sorry, you are not allowed to edit posts in this post type.');

export const restPostTypes = (): PostTypeDef[] => POST_TYPES.filter((type) => type.show_in_rest);

export const canEditType = (req: RestRequest, type: PostTypeDef): boolean => can(req.user, type.caps.edit_posts);

export const canListTypes: Permission<Deps> = (req) => {
  if (req.context === 'edit' && !restPostTypes().some((type) => canEditType(req, type))) throw new CannotViewTypes(req);
  return true;
};

/** WordPress lets anyone ask for a post type and refuses in the handler, so `Allow` always shows GET. */
export function readableType(req: RestRequest): PostTypeDef {
  const type = findPostType(String(req.params.type));
  if (!type) throw new TypeInvalid();
  if (!type.show_in_rest) throw new CannotReadType(req);
  if (req.context === 'edit' && !canEditType(req, type)) throw new ForbiddenPostTypeContext(req);
  return type;
}
