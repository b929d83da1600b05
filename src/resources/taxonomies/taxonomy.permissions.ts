import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { defineAuthError, defineRestError } from '../../rest/errors.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type Permission } from '../../rest/route.js';
import { findTaxonomy, TAXONOMIES, type TaxonomyDef } from '../../registry/taxonomies.js';

export const TaxonomyInvalid = defineRestError('rest_taxonomy_invalid', 'Invalid taxonomy.', 404);
export const CannotViewTaxonomies = defineAuthError('rest_cannot_view', 'Sorry, you are not allowed to manage terms in this taxonomy.');
export const ForbiddenTaxonomyContext = defineAuthError('rest_forbidden_context', 'Sorry, you are not allowed to manage terms in this taxonomy.');

/** The taxonomies the list starts from: all, or those attached to the `type` asked for. */
export function candidateTaxonomies(req: RestRequest): readonly TaxonomyDef[] {
  const type = req.params.type;
  return type ? TAXONOMIES.filter((taxonomy) => taxonomy.types.includes(String(type))) : TAXONOMIES;
}

export const canAssignTerms = (req: RestRequest, taxonomy: TaxonomyDef): boolean => can(req.user, 'assign_terms', { taxonomy: taxonomy.capabilities });

export const canListTaxonomies: Permission<Deps> = (req) => {
  const assignable = candidateTaxonomies(req).some((taxonomy) => taxonomy.show_in_rest && canAssignTerms(req, taxonomy));
  if (req.context === 'edit' && !assignable) throw new CannotViewTaxonomies(req);
  return true;
};

/** An unknown taxonomy passes here so the handler answers 404; one hidden from REST is a plain refusal. */
export const canGetTaxonomy: Permission<Deps> = (req) => {
  const taxonomy = findTaxonomy(String(req.params.taxonomy));
  if (!taxonomy) return true;
  if (!taxonomy.show_in_rest) return false;
  if (req.context === 'edit' && !canAssignTerms(req, taxonomy)) throw new ForbiddenTaxonomyContext(req);
  return true;
};
