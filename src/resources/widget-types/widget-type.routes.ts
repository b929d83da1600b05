import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { registryRoutes } from '../../rest/registry-routes.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { CREATABLE, defineRoutes } from '../../rest/route.js';
import { WidgetTypeInvalid } from './widget-type.errors.js';
import { decodeInstance, encodeInstance, formDataInstance, requestedInstance } from './widget-type.instance.js';
import { canManageWidgets } from './widget-type.permissions.js';
import { updateInstance, WIDGET_TYPES, type WidgetInstance, type WidgetTypeDef } from './widget-type.registry.js';
import { previewWrap, renderForm, renderWidget } from './widget-type.render.js';
import { encodeArgs, encodeResponse, renderArgs, renderResponse, WIDGET_TYPE_ID, widgetTypeSchema } from './widget-type.schema.js';
import { prepareWidgetType } from './widget-type.serializer.js';

function requestedType(req: RestRequest): WidgetTypeDef {
  const type = WIDGET_TYPES.find(String(req.params.id));
  if (!type) throw new WidgetTypeInvalid();
  return type;
}

const instanceParam = (req: RestRequest) => req.params.instance as Record<string, unknown> | undefined;

/**
 * `encode_form_data`: the settings a form submission makes of the given ones (sent back encoded
 * with their hash), with the form and a preview rendered from them.
 */
async function encodeWidget(req: RestRequest, deps: Deps): Promise<Record<string, unknown>> {
  const type = requestedType(req);
  const number = typeof req.params.number === 'number' ? req.params.number : -1;
  const given = instanceParam(req);
  let instance: Record<string, unknown> = {};
  if (typeof given?.encoded === 'string' && typeof given.hash === 'string') instance = await decodeInstance(deps.store.db, given.encoded, given.hash);
  const submitted = typeof req.params.form_data === 'string' ? formDataInstance(type, req.params.form_data) : undefined;
  if (submitted) instance = updateInstance(type, submitted, can(req.user, 'unfiltered_html'));
  return {
    form: renderForm(type, number, instance).trim(),
    preview: (await renderWidget(deps, type, instance, previewWrap(type))).trim(),
    instance: await encodeInstance(deps.store.db, type, JSON.stringify(instance)),
  };
}

/** `render`: a preview of the given settings, as `the_widget` prints them. */
async function renderPreview(req: RestRequest, deps: Deps): Promise<Record<string, unknown>> {
  const type = requestedType(req);
  const given = instanceParam(req);
  let instance: WidgetInstance | Record<string, unknown> = {};
  if (given && (given.raw !== undefined || (given.encoded !== undefined && given.hash !== undefined))) {
    const requested = await requestedInstance(deps.store.db, type, given);
    instance = given.raw !== undefined ? updateInstance(type, requested, can(req.user, 'unfiltered_html')) : requested;
  }
  return { preview: (await renderWidget(deps, type, instance, previewWrap(type))).trim() };
}

/** WordPress's widget types controller, over the types the service offers. */
export const widgetTypeRoutes = defineRoutes<Deps>('cms/v2', [
  ...registryRoutes({
    path: '/widget-types',
    schema: widgetTypeSchema,
    key: { name: 'id', description: WIDGET_TYPE_ID, pattern: '[a-zA-Z0-9_-]+' },
    listPermission: canManageWidgets,
    itemPermission: canManageWidgets,
    entries: () => WIDGET_TYPES.all,
    find: requestedType,
    prepare: prepareWidgetType,
  }),
  {
    path: '/widget-types/(?P<id>[a-zA-Z0-9_-]+)/encode',
    endpoints: [{ methods: CREATABLE, args: encodeArgs, permission: canManageWidgets, response: { body: encodeResponse }, handler: encodeWidget }],
  },
  {
    path: '/widget-types/(?P<id>[a-zA-Z0-9_-]+)/render',
    endpoints: [{ methods: CREATABLE, args: renderArgs, permission: canManageWidgets, response: { body: renderResponse }, handler: renderPreview }],
  },
]);
