import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type TaxonomyDef } from '../../registry/taxonomies.js';

export function prepareTaxonomy(taxonomy: TaxonomyDef, req: RestRequest): Record<string, unknown> {
  const data: Record<string, unknown> = {
    name: taxonomy.name,
    slug: taxonomy.slug,
    capabilities: taxonomy.capabilities,
    description: taxonomy.description,
    labels: taxonomy.labels,
    types: [...taxonomy.types],
    show_cloud: taxonomy.show_cloud,
    hierarchical: taxonomy.hierarchical,
    rest_base: taxonomy.rest_base,
    rest_namespace: taxonomy.rest_namespace,
    visibility: { ...taxonomy.visibility },
  };
  if (req.wants('_links')) {
    const links: Links = {
      collection: [{ href: req.url('/cms/v2/taxonomies') }],
      'https://api.w.org/items': [{ href: req.url(`/${taxonomy.rest_namespace}/${taxonomy.rest_base}`) }],
    };
    data._links = links;
  }
  return data;
}
