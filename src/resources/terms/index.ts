import { findTaxonomy, type TaxonomyDef } from '../../registry/taxonomies.js';
import { type ResourceManifest } from '../manifest.js';
import { ensureDefaultCategory } from './term.commands.js';
import { termCountIndexes } from './term.count-log.js';
import { refreshTermCounts } from './term.counts.js';
import { beginKeepingTermCounts, startTermCountHeal } from './term.counts-heal.js';
import { countTermsOf, termIndexes } from './term.model.js';
import { termRoutes } from './term.routes.js';

export { termRoutes } from './term.routes.js';
export { type TermExtension, type TermWrite } from './term.controller.js';
export { type TermDoc, termsCollection } from './term.model.js';
export { CannotUpdateTerm, TermInvalid } from './term.errors.js';
export { type TaggedPost } from './term.queries.js';
export { termLink } from './term.serializer.js';
export { healTermCounts, keepTermCountsFrom } from './term.counts-heal.js';

function taxonomy(slug: string): TaxonomyDef {
  const def = findTaxonomy(slug);
  if (!def) throw new Error(`Taxonomy ${slug} is not registered`);
  return def;
}

/** Categories and tags; menus reuse `termRoutes` with their own extension. */
export const termsResource: ResourceManifest = {
  routes: [...termRoutes(taxonomy('category')), ...termRoutes(taxonomy('post_tag'))],
  indexes: [...termIndexes, ...termCountIndexes],
  seed: async (deps) => {
    await ensureDefaultCategory(deps);
    await beginKeepingTermCounts(deps);
  },
  background: startTermCountHeal,
  hooks: { afterPostWrite: refreshTermCounts, answers: { countTermsOf } },
};
