import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { POST_TYPES } from '../../registry/post-types.js';
import { defineAuthError, defineRestError } from '../../rest/errors.js';
import { type Permission } from '../../rest/route.js';
import { findBlockType } from './block-type.queries.js';

export const BlockTypeInvalid = defineRestError('rest_block_type_invalid', 'Invalid block type.', 404);
const CannotViewBlockTypes = defineAuthError('rest_block_type_cannot_view', 'Sorry, you are not allowed to manage block types.');

/** `edit_posts`, or the edit capability of any post type shown in REST (WordPress's `check_read_permission`). */
export const canViewBlockTypes: Permission<Deps> = (req) => {
  if (can(req.user, 'edit_posts')) return true;
  if (POST_TYPES.some((type) => type.show_in_rest && can(req.user, type.caps.edit_posts))) return true;
  throw new CannotViewBlockTypes(req);
};

/** As WordPress, the permission check finds the block: a caller who may not view block types never learns which exist. */
export const canViewBlockType: Permission<Deps> = async (req, deps) => {
  canViewBlockTypes(req, deps);
  if (!(await findBlockType(req, deps, `${String(req.params.namespace)}/${String(req.params.name)}`))) throw new BlockTypeInvalid();
  return true;
};
