// The errors of WordPress's posts controller that other resources stored or checked as posts
// answer with too (pages, media, menu items, post types, revisions, a term's post): each defined
// once, here, rather than in one resource that the others would have to reach into.
import { defineAuthError, defineRestError } from '../rest/errors.js';

/** No item of the route's type has this id. */
export const PostInvalidId = defineRestError('rest_post_invalid_id', 'Invalid post ID.', 404);
/** A parameter names a post that does not exist. */
export const PostInvalidIdParam = defineRestError('rest_post_invalid_id', 'Invalid post ID.', 400);
/** An item's author is no user. */
export const InvalidAuthor = defineRestError('rest_invalid_author', 'Invalid author ID.', 400);
export const PostExists = defineRestError('rest_post_exists', 'Cannot create existing post.', 400);
export const CannotCreatePost = defineAuthError('rest_cannot_create', 'Sorry, you are not allowed to create posts as this user.');
export const CannotEditPost = defineAuthError('rest_cannot_edit', 'Sorry, you are not allowed to edit this post.');
export const CannotDeletePost = defineAuthError('rest_cannot_delete', 'Sorry, you are not allowed to delete this post.');
export const ForbiddenPostTypeContext = defineAuthError('rest_forbidden_context', 'Sorry, you are not allowed to edit posts in this post type.');
/** An item's revisions (and its past, read as of a point) are for those who may edit it. */
export const CannotReadPostRevisions = defineAuthError('rest_cannot_read', 'Sorry, you are not allowed to view revisions of this post.');

// The posts controller's list errors, which the revision and history lists answer too.
export const PostInvalidPage = defineRestError('rest_post_invalid_page_number', 'The page number requested is larger than the number of pages available.', 400);
export const NoSearchTerm = defineRestError('rest_no_search_term_defined', 'You need to define a search term to order by relevance.', 400);
export const OrderbyIncludeMissing = defineRestError('rest_orderby_include_missing_include', 'You need to define an include parameter to order by include.', 400);
