import { type ResourceManifest } from '../manifest.js';
import { templateIndexes } from './template.model.js';
import { templateRoutes } from './template.routes.js';

export const templatesResource: ResourceManifest = {
  routes: [...templateRoutes('cms_template'), ...templateRoutes('cms_template_part')],
  indexes: templateIndexes,
};
export { listTemplates } from './template.view.js';
