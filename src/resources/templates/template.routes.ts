import { type Deps } from '../../deps.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { AS_OF_ARGS, asksAsOf } from '../../rest/as-of.js';
import { etagHeader, ifMatchOf } from '../../rest/conditional.js';
import { RestResponse } from '../../rest/rest-response.js';
import { CREATABLE, DELETABLE, defineRoutes, EDITABLE, READABLE, type RouteSpec } from '../../rest/route.js';
import { type TemplateKind } from '../../themes/themes.js';
import { createTemplate, deleteTemplate, trashTemplate, updateTemplate, type TemplateInput } from './template.commands.js';
import { getTemplateAt } from './template.as-of.js';
import { templateHistory } from './template.history.js';
import { parseTemplateId } from './template.model.js';
import { canManageTemplates, canReadTemplates, InvalidTemplate, TemplateAlreadyTrashed, TemplateNotFound } from './template.permissions.js';
import { templateCollectionArgs, templateDeleteArgs, templateIdArg, templateSchema, templateWriteArgs } from './template.schema.js';
import { prepareTemplate, templateRoute } from './template.serializer.js';
import { findTemplate, listTemplates, viewOfDoc, type TemplateListQuery, type TemplateView } from './template.view.js';
import { contextArg } from '../../rest/item-schema.js';
import { savesOf } from '../../registry/saved-fields.js';

async function requestedTemplate(kind: TemplateKind, req: RestRequest, deps: Deps): Promise<TemplateView> {
  const id = parseTemplateId(String(req.params.id));
  const view = id ? await findTemplate(deps, kind, id) : null;
  if (!view) throw new TemplateNotFound();
  return view;
}

/** A customized template's entity tag (its version); a theme file has none. */
const templateEtag = (view: TemplateView) => (view.doc ? etagHeader(templateHistory.etag(view.doc)) : {});

/** A template as the answer, with its `ETag`. */
async function templateAnswer(view: TemplateView, req: RestRequest, deps: Deps, status = 200, headers: Record<string, string> = {}): Promise<RestResponse> {
  return new RestResponse(await prepareTemplate(view, req, deps), status, { ...headers, ...templateEtag(view) });
}

function templateInput(req: RestRequest): TemplateInput {
  const { slug, theme, content, title, description, status, author, area } = req.params as TemplateInput;
  return { slug, theme, content, title, description, status, author, area };
}

async function createTemplateItem(kind: TemplateKind, req: RestRequest, deps: Deps): Promise<RestResponse> {
  const view = viewOfDoc(deps, await createTemplate(deps, kind, templateInput(req), req.user.id));
  return templateAnswer(view, req, deps, 201, { Location: req.url(`${templateRoute(view)}/${view.id}`) });
}

async function updateTemplateItem(kind: TemplateKind, req: RestRequest, deps: Deps): Promise<RestResponse> {
  const current = await requestedTemplate(kind, req, deps);
  // `source: "theme"` reverts: the record goes and the theme file answers again.
  if (req.params.source === 'theme') {
    if (current.doc) await deleteTemplate(deps, current.doc, req.user.id, ifMatchOf(req));
    return templateAnswer(await requestedTemplate(kind, req, deps), req, deps);
  }
  const doc = await updateTemplate(deps, current, templateInput(req), req.user.id, ifMatchOf(req));
  return templateAnswer(viewOfDoc(deps, doc), req, deps);
}

/** Deletes with `force`, answering what was deleted; otherwise trashes. */
async function deleteTemplateItem(kind: TemplateKind, req: RestRequest, deps: Deps) {
  const current = await requestedTemplate(kind, req, deps);
  if (!current.doc) throw new InvalidTemplate();
  if (req.params.force === true) {
    const { _links: _omitted, ...previous } = await prepareTemplate(current, req, deps);
    await deleteTemplate(deps, current.doc, req.user.id, ifMatchOf(req));
    return { deleted: true, previous };
  }
  if (current.status === 'trash') throw new TemplateAlreadyTrashed();
  return templateAnswer(viewOfDoc(deps, await trashTemplate(deps, current.doc, req.user.id, ifMatchOf(req))), req, deps);
}

/**
 * WordPress's `WP_REST_Templates_Controller` for one kind: `/templates` or `/template-parts`
 * (list, create) and `/<base>/<theme>//<slug>` (read, update, delete).
 */
export function templateRoutes(kind: TemplateKind): RouteSpec<Deps>[] {
  const schema = templateSchema(kind);
  const base = templateRoute({ type: kind }).replace('/cms/v2', '');
  return defineRoutes<Deps>('cms/v2', [
    {
      path: base,
      schema,
      endpoints: [
        {
          methods: READABLE,
          args: templateCollectionArgs(schema),
          permission: canReadTemplates,
          response: { body: 'items' },
          handler: async (req, deps) => {
            const views = await listTemplates(deps, kind, req.params as TemplateListQuery);
            return Promise.all(views.map((view) => prepareTemplate(view, req, deps)));
          },
        },
        {
          methods: CREATABLE,
          args: templateWriteArgs(schema, 'create'),
          saves: savesOf(base.slice(1)),
          permission: canManageTemplates,
          response: { status: 201 },
          answerContext: 'view',
          handler: (req, deps) => createTemplateItem(kind, req, deps),
        },
      ],
    },
    {
      path: `${base}/(?P<id>[\\/\\w%-]+)`,
      schema,
      endpoints: [
        {
          methods: READABLE,
          args: { ...templateIdArg, context: contextArg(schema), ...AS_OF_ARGS },
          permission: canReadTemplates,
          handler: async (req, deps) => {
            const view = await requestedTemplate(kind, req, deps);
            return asksAsOf(req) ? getTemplateAt(req, deps, view) : templateAnswer(view, req, deps);
          },
        },
        {
          methods: EDITABLE,
          args: templateWriteArgs(schema, 'update'),
          saves: savesOf(base.slice(1)),
          permission: canManageTemplates,
          answerContext: 'edit',
          handler: (req, deps) => updateTemplateItem(kind, req, deps),
        },
        {
          methods: DELETABLE,
          args: templateDeleteArgs,
          permission: canManageTemplates,
          response: { body: 'trashed-or-deleted' },
          answerContext: 'edit',
          handler: (req, deps) => deleteTemplateItem(kind, req, deps),
        },
      ],
    },
  ]);
}
