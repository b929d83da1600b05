import { type Deps } from '../../deps.js';
import { registryRoutes } from '../../rest/registry-routes.js';
import { defineRoutes } from '../../rest/route.js';
import { findTaxonomy } from '../../registry/taxonomies.js';
import { canAssignTerms, canGetTaxonomy, canListTaxonomies, candidateTaxonomies, TaxonomyInvalid } from './taxonomy.permissions.js';
import { taxonomySchema } from './taxonomy.schema.js';
import { prepareTaxonomy } from './taxonomy.serializer.js';

export const taxonomyRoutes = defineRoutes<Deps>(
  'cms/v2',
  registryRoutes({
    path: '/taxonomies',
    schema: taxonomySchema,
    key: { name: 'taxonomy', description: 'An alphanumeric identifier for the taxonomy.' },
    listArgs: { type: { description: 'Limit results to taxonomies associated with a specific post type.', type: 'string' } },
    listPermission: canListTaxonomies,
    itemPermission: canGetTaxonomy,
    entries: (req) => candidateTaxonomies(req).filter((taxonomy) => taxonomy.show_in_rest && (req.context !== 'edit' || canAssignTerms(req, taxonomy))),
    keyOf: (taxonomy) => taxonomy.slug,
    find: (req) => {
      const taxonomy = findTaxonomy(String(req.params.taxonomy));
      if (!taxonomy) throw new TaxonomyInvalid();
      return taxonomy;
    },
    prepare: prepareTaxonomy,
  }),
);
