import { can, type Principal } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { findPostType } from '../../registry/post-types.js';
import { filterSaved } from '../../registry/saved-fields.js';
import { ifMatchOf, etagHeader } from '../../rest/conditional.js';
import { type ItemRoute } from '../../rest/item-route.js';
import { filterByContext } from '../../rest/item-schema.js';
import { RestResponse } from '../../rest/rest-response.js';
import { type FieldSchema, type ItemSchema } from '../../rest/schema.js';
import { type TemplateKind } from '../../themes/themes.js';
import { type AutosavingType } from '../autosaves/index.js';
import { type HistorySubject } from '../history/index.js';
import { type ChangeSource } from '../manifest.js';
import { restoringWriters, revisionRecord } from '../revisions/index.js';
import { autosaveTemplate, deleteTemplateRevision, restoreTemplateRevision, type TemplateInput, type TemplateText } from './template.commands.js';
import { templateHistory } from './template.history.js';
import { parseTemplateId, TEMPLATE_REVISIONED_FIELDS, templateId, type TemplateDoc } from './template.model.js';
import { canReadTemplateDoc } from './template.permissions.js';
import { templateSchema, templateWriteArgs } from './template.schema.js';
import { prepareTemplate, templateBase } from './template.serializer.js';
import { findTemplate, viewOfDoc } from './template.view.js';

/**
 * A template id in a path: `<theme>//<slug>` (a client may collapse the double slash), by the
 * rules `parseTemplateId` holds it to: no dot, no further slash.
 */
const TEMPLATE_ID_PATTERN = '[\\w-]+\\/\\/?[\\w%-]+';

/** Templates and template parts are named in URLs by `<theme>//<slug>`, as WordPress's templates controller names them. */
export function templateItemRoute(kind: TemplateKind): ItemRoute<TemplateDoc> {
  return {
    namespace: 'cms/v2',
    base: templateBase(kind),
    idPattern: TEMPLATE_ID_PATTERN,
    idsHoldSlashes: true,
    // `<theme>//<slug>`: the default theme's own templates and parts (`index`, `header`) are examples.
    idArg: (description) => ({ description, type: 'string', examples: kind === 'cms_template' ? ['cornerstone//index'] : ['cornerstone//header'] }),
    names: (raw) => parseTemplateId(String(raw)) !== null,
    idOf: (doc) => templateId(doc.theme, doc.slug),
  };
}

/** The template of `kind` a URL names, once it has a record (a theme file has no history), or null. */
async function findTemplateDoc(deps: Deps, kind: TemplateKind, raw: unknown): Promise<TemplateDoc | null> {
  const id = parseTemplateId(String(raw));
  const view = id ? await findTemplate(deps, kind, id) : null;
  return view?.doc ?? null;
}

const mayEditTemplates = (user: Principal) => can(user, 'edit_theme_options');

const revisionsSchema = (kind: TemplateKind): ItemSchema => {
  const { title, content } = templateSchema(kind).properties;
  return { $schema: 'http://json-schema.org/draft-04/schema#', title: kind, type: 'object', properties: { title, content } };
};

/** A revision's description: the template's, as it was, read-only. */
function keptDescription(schema: ItemSchema): FieldSchema {
  const { default: _none, ...description } = schema.properties.description;
  return { ...description, readonly: true };
}

/**
 * Templates and template parts as a revisioned type (WordPress 6.4's template revisions and
 * autosaves): a revision keeps the title, content and description; an autosave is always the
 * caller's own row, never saved into the template.
 */
export function templateRevisions(kind: TemplateKind): AutosavingType<TemplateDoc> {
  const schema = templateSchema(kind);
  return {
    postType: findPostType(kind)!,
    route: templateItemRoute(kind),
    itemSchema: revisionsSchema(kind),
    extraProperties: { description: keptDescription(schema) },
    findItem: (deps, id) => findTemplateDoc(deps, kind, id),
    canEdit: mayEditTemplates,
    canDelete: mayEditTemplates,
    async restore(deps, item, revision, req) {
      const text: Record<string, unknown> = { title: revision.title, content: revision.content, description: revision.excerpt };
      filterSaved(templateBase(kind), text, await restoringWriters(deps, req, revision));
      const doc = await restoreTemplateRevision(deps, item, revision._id, text as TemplateText, req.user.id, ifMatchOf(req));
      return new RestResponse(await prepareTemplate(viewOfDoc(deps, doc), req, deps), 200, etagHeader(templateHistory.etag(doc)));
    },
    deleteRevision: (deps, item, revision, actor) => deleteTemplateRevision(deps, item, revision, actor),
    diffFields: ['title', 'content', 'description'],
    fieldText: (revision, field) => (field === 'description' ? revision.excerpt : field === 'title' ? revision.title : revision.content) ?? '',
    extraFields: (record) => ({ description: record.excerpt ?? '' }),
    updateArgs: templateWriteArgs(schema, 'update'),
    async autosave(deps, item, req) {
      const autosave = await autosaveTemplate(deps, item, req.params as TemplateInput, req.user.id);
      return { record: revisionRecord(autosave, deps.siteUrl), inPlace: false };
    },
  };
}

/** `/history` of templates or template parts: for those who may edit them. */
export function templateHistorySubject(kind: TemplateKind): HistorySubject<TemplateDoc> {
  return {
    route: templateItemRoute(kind),
    find: async (deps, id) => {
      const doc = await findTemplateDoc(deps, kind, id);
      if (!doc) throw new templateHistory.NotFound();
      return doc;
    },
    mayRead: (req) => mayEditTemplates(req.user),
  };
}

/** Templates in the change feed: their history for those who manage them, never public. */
export const templateChangeSource: ChangeSource<TemplateDoc> = {
  itemTypes: ['cms_template', 'cms_template_part'],
  history: templateHistory,
  mayReadHistory: mayEditTemplates,
  mayRead: canReadTemplateDoc,
  isPublic: () => false,
  longFields: TEMPLATE_REVISIONED_FIELDS,
  diffFields: ['title', 'content', 'description'],
  fieldText: (doc, field) => (field === 'description' ? doc.description : field === 'title' ? doc.title : doc.content),
  async prepare(docs, req, deps) {
    return Promise.all(docs.map(async (doc) => filterByContext(templateSchema(doc.type), await prepareTemplate(viewOfDoc(deps, doc), req, deps), 'view') as Record<string, unknown>));
  },
};
