import { type Deps } from '../../deps.js';
import { argsFromSchema, contextArg, filterByContext } from '../../rest/item-schema.js';
import { pageOf } from '../../rest/pagination.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { created, type RestResponse } from '../../rest/rest-response.js';
import { BATCH_V1, CREATABLE, DELETABLE, defineRoutes, EDITABLE, READABLE, type RouteSpec } from '../../rest/route.js';
import { findTaxonomy, type TaxonomyDef } from '../../registry/taxonomies.js';
import { createTerm, deleteTerm, updateTerm, type TermInput } from './term.commands.js';
import { termController, type TermController, type TermExtension } from './term.controller.js';
import { TermInvalid, TermNotDeletable } from './term.errors.js';
import { isDefaultTerm, type TermDoc } from './term.model.js';
import { termPermissions } from './term.permissions.js';
import { listTerms, rememberTerm, requestedTerm, termWindow, type TermListParams } from './term.queries.js';
import { forceArg, termCollectionArgs, termIdArg } from './term.schema.js';
import { prepareTerm } from './term.serializer.js';
import { savesOf } from '../../registry/saved-fields.js';

/**
 * The routes of one taxonomy's terms (WordPress's `WP_REST_Terms_Controller`):
 * `/<rest_base>` (list, create) and `/<rest_base>/<id>` (read, update, delete with `force`).
 */
export function termRoutes(taxonomy: TaxonomyDef, extension: TermExtension = {}): RouteSpec<Deps>[] {
  const ctl = termController(taxonomy, extension);
  const permissions = termPermissions(ctl);
  // The taxonomy's fields as the table declares them under its registered route base.
  const saves = savesOf(findTaxonomy(taxonomy.slug)?.rest_base ?? taxonomy.rest_base);
  const writeArgs = (mode: 'create' | 'update') => {
    const args = argsFromSchema(ctl.schema, mode);
    return extension.args ? extension.args(args, mode) : args;
  };
  return defineRoutes<Deps>(taxonomy.rest_namespace, [
    {
      path: `/${taxonomy.rest_base}`,
      schema: ctl.schema,
      allowBatch: BATCH_V1,
      endpoints: [
        {
          methods: READABLE,
          args: termCollectionArgs(taxonomy, ctl.schema),
          permission: permissions.canList,
          response: { body: 'items' },
          handler: (req, deps) => listTermsHandler(ctl, req, deps),
        },
        {
          methods: CREATABLE,
          args: writeArgs('create'),
          saves,
          permission: permissions.canCreate,
          response: { status: 201 },
          answerContext: ctl.writeContext,
          handler: (req, deps) => createTermHandler(ctl, req, deps),
        },
      ],
    },
    {
      path: `/${taxonomy.rest_base}/(?P<id>[\\d]+)`,
      schema: ctl.schema,
      allowBatch: BATCH_V1,
      endpoints: [
        {
          methods: READABLE,
          args: { ...termIdArg, context: contextArg(ctl.schema) },
          permission: permissions.canRead,
          handler: async (req, deps) => prepareTerm(ctl, await existingTerm(ctl, req, deps), req, deps),
        },
        {
          methods: EDITABLE,
          args: { ...termIdArg, ...writeArgs('update') },
          saves,
          permission: permissions.canUpdate,
          answerContext: ctl.writeContext,
          handler: (req, deps) => updateTermHandler(ctl, req, deps),
        },
        {
          methods: DELETABLE,
          args: { ...termIdArg, ...forceArg },
          permission: permissions.canDelete,
          answerContext: 'view',
          handler: (req, deps) => deleteTermHandler(ctl, req, deps),
        },
      ],
    },
  ]);
}

async function existingTerm(ctl: TermController, req: RestRequest, deps: Deps): Promise<TermDoc> {
  const doc = await requestedTerm(req, deps, ctl.taxonomy);
  if (!doc) throw new TermInvalid();
  return doc;
}

function termInput(req: RestRequest): TermInput {
  const { name, slug, description, parent, meta } = req.params;
  return {
    name: name as string | undefined,
    slug: slug as string | undefined,
    description: description as string | undefined,
    parent,
    meta: meta as Record<string, unknown> | undefined,
  };
}

// Terms have no out-of-range error: a page past the last is an empty list with the headers.
async function listTermsHandler(ctl: TermController, req: RestRequest, deps: Deps): Promise<RestResponse> {
  const params = req.params as unknown as TermListParams;
  const window = termWindow(params);
  const { docs, total } = await listTerms(deps, ctl.taxonomy, params, window, ctl.extension.taggedObject, ctl.extension.nonEmpty);
  const items = await Promise.all(docs.map((doc) => prepareTerm(ctl, doc, req, deps)));
  return pageOf(items, total, window);
}

async function createTermHandler(ctl: TermController, req: RestRequest, deps: Deps): Promise<RestResponse> {
  await ctl.extension.validate?.(req, deps);
  const doc = await createTerm(ctl, deps, termInput(req));
  await ctl.extension.afterWrite?.(doc, req, deps, true);
  return created(await prepareTerm(ctl, doc, req, deps), req.url(`${ctl.route}/${doc._id}`));
}

async function updateTermHandler(ctl: TermController, req: RestRequest, deps: Deps): Promise<Record<string, unknown>> {
  const current = await existingTerm(ctl, req, deps);
  await ctl.extension.validate?.(req, deps);
  const doc = await updateTerm(ctl, deps, current, termInput(req));
  rememberTerm(req, doc);
  await ctl.extension.afterWrite?.(doc, req, deps, false);
  return prepareTerm(ctl, doc, req, deps);
}

async function deleteTermHandler(ctl: TermController, req: RestRequest, deps: Deps): Promise<Record<string, unknown>> {
  const doc = await existingTerm(ctl, req, deps);
  // WordPress answers 501, not 405: the method exists; terms simply have no trash.
  if (req.params.force !== true) throw new ctl.TrashNotSupported();
  if (isDefaultTerm(doc)) throw new TermNotDeletable();
  const { _links: _omitted, ...previous } = await prepareTerm(ctl, doc, req, deps);
  await deleteTerm(ctl, deps, doc);
  rememberTerm(req, null);
  await ctl.extension.afterDelete?.(doc, req, deps);
  return { deleted: true, previous: filterByContext(ctl.schema, previous, 'view') };
}
