import { defineAuthError, defineRestError, defineRestErrorWith, type RestError } from '../../rest/errors.js';

export const TermInvalid = defineRestError('rest_term_invalid', 'Term does not exist.', 404);
export const ParentTermInvalid = defineRestError('rest_term_invalid', 'Parent term does not exist.', 400);
export const TaxonomyNotHierarchical = defineRestError(
  'rest_taxonomy_not_hierarchical',
  'Cannot set parent term, taxonomy is not hierarchical.',
  400,
);
export const TrashNotSupported = defineRestError(
  'rest_trash_not_supported',
  "Terms do not support trashing. Set 'force=true' to delete.",
  501,
);
// `wp_insert_term` and `wp_delete_term` fail without a status, which WordPress's REST server sends
// as 500; a client's mistake is a 400 here (CONTRACT.md), with WordPress's code.
export const EmptyTermName = defineRestError('empty_term_name', 'A name is required for this term.', 400);
export const TermNotDeletable = defineRestError('rest_cannot_delete', 'The term cannot be deleted.', 400);

export const CannotCreateTerm = defineAuthError('rest_cannot_create', 'Sorry, you are not allowed to create terms in this taxonomy.');
export const CannotUpdateTerm = defineAuthError('rest_cannot_update', 'Sorry, you are not allowed to edit this term.');
export const CannotDeleteTerm = defineAuthError('rest_cannot_delete', 'Sorry, you are not allowed to delete this term.');
export const ForbiddenTaxonomyContext = defineAuthError('rest_forbidden_context', 'Sorry, you are not allowed to edit terms in this taxonomy.');
export const ForbiddenTermContext = defineAuthError('rest_forbidden_context', 'Sorry, you are not allowed to edit this term.');
export const ForbiddenPostTerms = defineAuthError('rest_forbidden_context', 'Sorry, you are not allowed to view terms for this post.');

/** `wp_update_term` refuses a slug another term of the taxonomy has (WordPress: no status, so 500; here 400). */
export const DuplicateTermSlug = defineRestErrorWith('duplicate_term_slug', 400, (slug: string) => `The slug &#8220;${slug}&#8221; is already in use by another term.`);

export type TermExistsClass = new (existingId: number) => RestError;

/**
 * `term_exists` with the taxonomy's wording. The REST controller adds the existing term's id to
 * `data` twice over, so WordPress's body also carries the earlier values in `additional_data`.
 */
export function defineTermExists(message: string): TermExistsClass {
  return defineRestErrorWith('term_exists', 400, (existingId: number) => ({
    message,
    data: { term_id: existingId },
    extra: { additional_data: [existingId, existingId] },
  }));
}
