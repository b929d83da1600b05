import { autosaveRoutes } from '../autosaves/index.js';
import { historyRoutes } from '../history/index.js';
import { lockRoutes } from '../locks/index.js';
import { type ResourceManifest } from '../manifest.js';
import { revisionRoutes } from '../revisions/index.js';
import { type TemplateKind } from '../../themes/themes.js';
import { giveTemplatesStreams } from './template.history.js';
import { templateIndexes } from './template.model.js';
import { templatesProjection } from './template.projection.js';
import { templateChangeSource, templateHistorySubject, templateRevisions } from './template.revisions.js';
import { templateRoutes } from './template.routes.js';
import { canManageTemplates, TemplateNotFound } from './template.permissions.js';

/**
 * A kind's routes. Those under an item go first: the item route's id pattern (`[\/\w%-]+`, as
 * WordPress's) would take `<theme>//<slug>/revisions` for an id.
 */
const routesOf = (kind: TemplateKind) => [
  ...revisionRoutes(templateRevisions(kind)),
  ...autosaveRoutes(templateRevisions(kind)),
  ...historyRoutes(templateHistorySubject(kind)),
  ...lockRoutes(templateRevisions(kind), { permission: canManageTemplates, NotFound: TemplateNotFound }),
  ...templateRoutes(kind),
];

/**
 * Templates and template parts: theme files, and the site's own records over them, kept from the
 * change log by the kernel posts use, with revisions, autosaves, diff, restore and history over
 * the same routes as posts.
 */
export const templatesResource: ResourceManifest = {
  routes: [...routesOf('cms_template'), ...routesOf('cms_template_part')],
  indexes: templateIndexes,
  projections: [templatesProjection],
  changeSources: [templateChangeSource],
  seed: async (deps) => {
    const given = await giveTemplatesStreams(deps);
    if (given > 0) deps.logger.info({ templates: given }, 'templates stored before templates kept a change log given their stream');
  },
};
export { listTemplates } from './template.view.js';
