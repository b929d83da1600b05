import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { argsFromSchema, contextArg, filterByContext } from '../../rest/item-schema.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { RestResponse } from '../../rest/rest-response.js';
import { BATCH_V1, CREATABLE, DELETABLE, defineRoutes, EDITABLE, READABLE } from '../../rest/route.js';
import { canManageWidgets, formDataInstance, InvalidWidget, requestedInstance, updateInstance, WIDGET_TYPES, type WidgetTypeDef } from '../widget-types/index.js';
import { checkSize, deleteWidget, insertNumbered, insertWidget, moveWidget, saveInstance } from './widget.commands.js';
import { WidgetNotFound } from './widget.errors.js';
import { INACTIVE_SIDEBAR, parseWidgetId, type WidgetDoc } from './widget.model.js';
import { findWidget, listWidgets } from './widget.queries.js';
import { forceArg, widgetIdArg, widgetListArgs, widgetSchema } from './widget.schema.js';
import { prepareWidget } from './widget.serializer.js';

async function requestedWidget(req: RestRequest, deps: Deps): Promise<WidgetDoc> {
  const doc = await findWidget(deps, String(req.params.id));
  if (!doc) throw new WidgetNotFound();
  return doc;
}

/**
 * The settings a write gives the widget (`save_widget`), serialized, or undefined when it sends
 * neither `instance` nor `form_data` for it. The type's `update()` keeps what it accepts.
 */
async function submittedInstance(req: RestRequest, deps: Deps, type: WidgetTypeDef, number?: number): Promise<string | undefined> {
  const unfiltered = can(req.user, 'unfiltered_html');
  const { instance, form_data: formData } = req.params;
  if (instance !== undefined && instance !== null) {
    const submitted = await requestedInstance(deps.store.db, type, instance as Record<string, unknown>);
    return JSON.stringify(updateInstance(type, submitted, unfiltered));
  }
  if (typeof formData !== 'string') return undefined;
  const submitted = formDataInstance(type, formData, number);
  return submitted ? JSON.stringify(updateInstance(type, submitted, unfiltered)) : undefined;
}

function widgetType(idBase: string): WidgetTypeDef {
  const type = WIDGET_TYPES.find(idBase);
  if (!type) throw new InvalidWidget('notUpdatable');
  return type;
}

/** Created with the next number of `id_base`; or, given an `id`, that widget saved (and created if it does not exist). */
async function createWidget(req: RestRequest, deps: Deps): Promise<RestResponse> {
  const sidebar = String(req.params.sidebar);
  let doc: WidgetDoc;
  if (typeof req.params.id === 'string' && req.params.id !== '') {
    const { idBase, number } = parseWidgetId(req.params.id);
    const type = widgetType(idBase);
    if (number === undefined || number < 1 || !Number.isSafeInteger(number)) throw new InvalidWidget('notUpdatable');
    const instance = await submittedInstance(req, deps, type, number);
    checkSize({ instance, sidebar });
    const id = `${idBase}-${number}`;
    const inserted = (await findWidget(deps, id)) ? null : await insertNumbered(deps, idBase, number, sidebar, instance ?? '{}');
    if (inserted) {
      doc = inserted;
    } else {
      // It exists, or was created meanwhile: saved and moved as WordPress saves a widget it has.
      const existing = await findWidget(deps, id);
      if (!existing) throw new WidgetNotFound();
      doc = instance === undefined ? existing : await saveInstance(deps, existing, instance);
      doc = await moveWidget(deps, doc, sidebar);
    }
  } else if (typeof req.params.id_base === 'string' && req.params.id_base !== '') {
    const type = widgetType(req.params.id_base);
    const instance = await submittedInstance(req, deps, type);
    doc = await insertWidget(deps, type.id, sidebar, instance ?? '{}');
  } else {
    throw new InvalidWidget('typeRequired');
  }
  return new RestResponse(await prepareWidget(doc, req, deps), 201);
}

async function updateWidget(req: RestRequest, deps: Deps): Promise<Record<string, unknown>> {
  let doc = await requestedWidget(req, deps);
  const type = widgetType(doc.idBase);
  const instance = await submittedInstance(req, deps, type, doc.number);
  const sidebar = req.params.sidebar;
  checkSize({ instance, sidebar: typeof sidebar === 'string' ? sidebar : undefined });
  if (instance !== undefined) doc = await saveInstance(deps, doc, instance);
  if (typeof sidebar === 'string' && sidebar !== doc.sidebar) doc = await moveWidget(deps, doc, sidebar);
  return prepareWidget(doc, req, deps);
}

/** With `force`, gone; without, moved to the inactive sidebar (where it may already be). */
async function removeWidget(req: RestRequest, deps: Deps): Promise<Record<string, unknown>> {
  let doc = await requestedWidget(req, deps);
  if (req.params.force === true) {
    const { _links: _omitted, ...previous } = await prepareWidget(doc, req, deps);
    await deleteWidget(deps, doc);
    return { deleted: true, previous: filterByContext(widgetSchema, previous, 'edit') };
  }
  if (doc.sidebar !== INACTIVE_SIDEBAR) doc = await moveWidget(deps, doc, INACTIVE_SIDEBAR);
  return prepareWidget(doc, req, deps);
}

/** WordPress's widgets controller. */
export const widgetRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: '/widgets',
    schema: widgetSchema,
    allowBatch: BATCH_V1,
    endpoints: [
      {
        methods: READABLE,
        args: { context: contextArg(widgetSchema), ...widgetListArgs },
        permission: canManageWidgets,
        response: { body: 'items' },
        handler: async (req, deps) => {
          const sidebar = typeof req.params.sidebar === 'string' ? req.params.sidebar : undefined;
          const docs = await listWidgets(deps, sidebar);
          return Promise.all(docs.map((doc) => prepareWidget(doc, req, deps)));
        },
      },
      {
        methods: CREATABLE,
        args: argsFromSchema(widgetSchema, 'create'),
        permission: canManageWidgets,
        response: { status: 201 },
        answerContext: 'edit',
        handler: createWidget,
      },
    ],
  },
  {
    path: '/widgets/(?P<id>[\\w\\-]+)',
    schema: widgetSchema,
    allowBatch: BATCH_V1,
    endpoints: [
      {
        methods: READABLE,
        args: { ...widgetIdArg, context: contextArg(widgetSchema) },
        permission: canManageWidgets,
        handler: async (req, deps) => prepareWidget(await requestedWidget(req, deps), req, deps),
      },
      {
        methods: EDITABLE,
        args: { ...argsFromSchema(widgetSchema, 'update'), ...widgetIdArg },
        permission: canManageWidgets,
        answerContext: 'edit',
        handler: updateWidget,
      },
      {
        methods: DELETABLE,
        args: { ...widgetIdArg, ...forceArg },
        permission: canManageWidgets,
        answerContext: 'edit',
        handler: removeWidget,
      },
    ],
  },
]);
