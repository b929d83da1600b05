import { type ResourceManifest } from '../manifest.js';
import { widgetTypeRoutes } from './widget-type.routes.js';

export { CannotManageWidgets, InvalidWidget } from './widget-type.errors.js';
export { encodeInstance, formDataInstance, requestedInstance, type EncodedInstance } from './widget-type.instance.js';
export { canManageWidgets } from './widget-type.permissions.js';
export { updateInstance, WIDGET_TYPES, type WidgetTypeDef } from './widget-type.registry.js';
export { renderForm, renderWidget, type WidgetWrap } from './widget-type.render.js';

export const widgetTypesResource: ResourceManifest = { routes: widgetTypeRoutes };
