import { type Deps } from '../../deps.js';
import { contextArg } from '../../rest/item-schema.js';
import { defineRoutes, READABLE } from '../../rest/route.js';
import { keyedCollection } from '../../rest/rest-response.js';
import { findTaxonomy } from '../../registry/taxonomies.js';
import { canAssignTerms, canGetTaxonomy, canListTaxonomies, candidateTaxonomies, TaxonomyInvalid } from './taxonomy.permissions.js';
import { taxonomySchema } from './taxonomy.schema.js';
import { prepareTaxonomy } from './taxonomy.serializer.js';

export const taxonomyRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: '/taxonomies',
    schema: taxonomySchema,
    endpoints: [
      {
        methods: READABLE,
        args: {
          context: contextArg(taxonomySchema),
          type: { description: 'Limit results to taxonomies associated with a specific post type.', type: 'string' },
        },
        permission: canListTaxonomies,
        response: { body: 'keyed-items' },
        handler: (req) => {
          const data: Record<string, unknown> = {};
          for (const taxonomy of candidateTaxonomies(req)) {
            if (!taxonomy.show_in_rest || (req.context === 'edit' && !canAssignTerms(req, taxonomy))) continue;
            data[taxonomy.slug] = prepareTaxonomy(taxonomy, req);
          }
          return keyedCollection(data);
        },
      },
    ],
  },
  {
    path: '/taxonomies/(?P<taxonomy>[\\w-]+)',
    schema: taxonomySchema,
    endpoints: [
      {
        methods: READABLE,
        args: {
          taxonomy: { description: 'An alphanumeric identifier for the taxonomy.', type: 'string' },
          context: contextArg(taxonomySchema),
        },
        permission: canGetTaxonomy,
        handler: (req) => {
          const taxonomy = findTaxonomy(String(req.params.taxonomy));
          if (!taxonomy) throw new TaxonomyInvalid();
          return prepareTaxonomy(taxonomy, req);
        },
      },
    ],
  },
]);
