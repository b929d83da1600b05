import { type ResourceManifest } from '../manifest.js';
import { widgetIndexes } from './widget.model.js';
import { widgetRoutes } from './widget.routes.js';

export { assignSidebar } from './widget.commands.js';
export { INACTIVE_SIDEBAR, type WidgetDoc } from './widget.model.js';
export { listWidgets } from './widget.queries.js';
export { knownSidebars } from './widget.sidebars.js';

export const widgetsResource: ResourceManifest = { routes: widgetRoutes, indexes: widgetIndexes };
