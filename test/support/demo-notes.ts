// A small resource registered only in tests, exercising every part of the REST layer
// through real routes backed by the real database.
import { type Deps } from '../../src/deps.js';
import { defineRestError, ForbiddenContext, RestError } from '../../src/rest/errors.js';
import { argsFromSchema, collectionArgs, contextArg } from '../../src/rest/item-schema.js';
import { type Links } from '../../src/rest/links.js';
import { pageOf, pageWindow } from '../../src/rest/pagination.js';
import { type RestRequest } from '../../src/rest/rest-request.js';
import { created, RestStream } from '../../src/rest/rest-response.js';
import { allowAnyone, CREATABLE, DELETABLE, defineRoutes, EDITABLE, READABLE, type Permission } from '../../src/rest/route.js';
import { type ItemSchema } from '../../src/rest/schema.js';
import { type ResourceManifest } from '../../src/resources/manifest.js';

export const NoteInvalidId = defineRestError('rest_note_invalid_id', 'Invalid note ID.', 404);
export const NoteInvalidPage = defineRestError('rest_note_invalid_page_number', 'The page number requested is larger than the number of pages available.', 400);
export const TrashNotSupported = defineRestError('rest_trash_not_supported', 'Notes do not support trashing. Set \'force=true\' to delete.', 501);

export const noteSchema: ItemSchema = {
  title: 'note',
  type: 'object',
  properties: {
    id: { type: 'integer', readonly: true, context: ['view', 'embed', 'edit'], description: 'Unique identifier.' },
    title: { type: 'string', required: true, minLength: 1, maxLength: 50, context: ['view', 'embed', 'edit'] },
    body: {
      type: 'object',
      context: ['view', 'edit'],
      properties: {
        raw: { type: 'string', context: ['edit'] },
        rendered: { type: 'string', readonly: true, context: ['view', 'edit'] },
      },
    },
    secret: { type: 'string', context: ['edit'] },
    priority: { type: 'integer', minimum: 1, maximum: 5, default: 3, context: ['view', 'edit'] },
    status: { type: 'string', enum: ['draft', 'publish'], default: 'publish', context: ['view', 'edit'] },
    tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, context: ['view', 'edit'] },
    pinned: { type: 'boolean', default: false, context: ['view', 'edit'] },
    related: { type: 'integer', default: 0, context: ['view', 'edit'] },
    email: { type: 'string', format: 'email', context: ['edit'] },
    due: { type: ['string', 'null'], format: 'date-time', context: ['view', 'edit'] },
  },
};

interface NoteDoc {
  _id: number;
  title: string;
  body: string;
  secret?: string;
  priority: number;
  status: string;
  tags: string[];
  pinned: boolean;
  related: number;
  email?: string;
  due?: string | null;
}

const notes = (deps: Deps) => deps.store.db.collection<NoteDoc>('demo_notes');
const loggedIn: Permission<Deps> = (req) => req.user.id > 0;
const isFirstUser: Permission<Deps> = (req) => req.user.id === 1;
const canRead: Permission<Deps> = (req) => {
  if (req.context === 'edit' && req.user.id === 0) throw new ForbiddenContext(req);
  return true;
};

/** How many times `body.rendered` was computed, so tests can tell skipped work from done work. */
export const renderCount = { value: 0 };

function prepareNote(doc: NoteDoc, req: RestRequest): Record<string, unknown> {
  const data: Record<string, unknown> = {
    id: doc._id,
    title: doc.title,
    secret: doc.secret ?? '',
    priority: doc.priority,
    status: doc.status,
    tags: doc.tags,
    pinned: doc.pinned,
    related: doc.related,
    email: doc.email ?? '',
    due: doc.due ?? null,
  };
  if (req.wants('body')) {
    renderCount.value++;
    data.body = { raw: doc.body, rendered: `<p>${doc.body}</p>` };
  }
  if (req.wants('_links')) {
    const links: Links = {
      self: [{ href: req.url(`/demo/v1/notes/${doc._id}`) }],
      collection: [{ href: req.url('/demo/v1/notes') }],
    };
    if (doc.related) links['https://api.w.org/related'] = [{ href: req.url(`/demo/v1/notes/${doc.related}`), embeddable: true }];
    links.about = [{ href: req.url('/demo/v1') }];
    data._links = links;
  }
  return data;
}

async function findNote(req: RestRequest, deps: Deps): Promise<NoteDoc> {
  const doc = await notes(deps).findOne({ _id: Number(req.params.id) });
  if (!doc) throw new NoteInvalidId();
  return doc;
}

let nextId = 0;

const idArg = { id: { type: 'integer', description: 'Unique identifier for the note.' } } as const;

export const notesResource: ResourceManifest = {
  indexes: [{ collection: 'demo_notes', key: { priority: 1, _id: 1 }, name: 'priority_id' }],
  routes: defineRoutes<Deps>('demo/v1', [
    {
      path: '/notes',
      schema: noteSchema,
      endpoints: [
        {
          methods: READABLE,
          args: {
            context: contextArg(noteSchema),
            ...collectionArgs(),
            search: { type: 'string', description: 'Limit results to those matching a string.' },
            include: { type: 'array', items: { type: 'integer' }, default: [] },
            order: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
          },
          permission: canRead,
          response: { body: 'items' },
          handler: async (req, deps) => {
            const filter: Record<string, unknown> = {};
            const include = req.params.include as number[];
            if (include.length) filter._id = { $in: include };
            if (req.params.search) filter.title = { $regex: String(req.params.search).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') };
            const window = pageWindow(req.params);
            const [total, docs] = await Promise.all([
              notes(deps).countDocuments(filter),
              notes(deps).find(filter).sort({ _id: req.params.order === 'desc' ? -1 : 1 }).skip(window.skip).limit(window.perPage).toArray(),
            ]);
            return pageOf(docs.map((doc) => prepareNote(doc, req)), total, window, NoteInvalidPage);
          },
        },
        {
          methods: CREATABLE,
          args: argsFromSchema(noteSchema, 'create'),
          permission: loggedIn,
          response: { status: 201 },
          handler: async (req, deps) => {
            if (req.params.id !== undefined) throw new RestError('rest_note_exists', 'Cannot create existing note.', 400);
            const p = req.params;
            const doc: NoteDoc = {
              _id: ++nextId,
              title: String(p.title),
              body: String((p.body as { raw?: string } | undefined)?.raw ?? ''),
              secret: p.secret as string | undefined,
              priority: p.priority as number,
              status: p.status as string,
              tags: (p.tags as string[] | undefined) ?? [],
              pinned: p.pinned as boolean,
              related: p.related as number,
              email: p.email as string | undefined,
              due: p.due as string | null | undefined,
            };
            await notes(deps).insertOne(doc);
            return created(prepareNote(doc, req), req.url(`/demo/v1/notes/${doc._id}`));
          },
        },
      ],
    },
    {
      path: '/notes/stream',
      endpoints: [
        {
          methods: READABLE,
          permission: allowAnyone,
          handler: (req, deps) => new RestStream((async function* () {
            for await (const doc of notes(deps).find().sort({ _id: 1 })) yield { id: doc._id, title: doc.title };
          })()),
        },
      ],
    },
    {
      path: '/notes/(?P<id>[\\d]+)',
      schema: noteSchema,
      endpoints: [
        {
          methods: READABLE,
          args: { ...idArg, context: contextArg(noteSchema) },
          permission: canRead,
          handler: async (req, deps) => prepareNote(await findNote(req, deps), req),
        },
        {
          methods: EDITABLE,
          args: { ...idArg, ...argsFromSchema(noteSchema, 'update') },
          permission: loggedIn,
          handler: async (req, deps) => {
            const doc = await findNote(req, deps);
            const changes: Partial<NoteDoc> = {};
            for (const key of ['title', 'secret', 'priority', 'status', 'tags', 'pinned', 'related', 'email', 'due'] as const) {
              if (req.params[key] !== undefined) (changes as Record<string, unknown>)[key] = req.params[key];
            }
            await notes(deps).updateOne({ _id: doc._id }, { $set: changes });
            return prepareNote({ ...doc, ...changes }, req);
          },
        },
        {
          methods: DELETABLE,
          args: { ...idArg, force: { type: 'boolean', default: false, description: 'Required to be true.' } },
          permission: isFirstUser,
          answerContext: 'edit',
          handler: async (req, deps) => {
            const doc = await findNote(req, deps);
            if (req.params.force !== true) throw new TrashNotSupported();
            const previous = prepareNote(doc, req);
            delete previous._links;
            await notes(deps).deleteOne({ _id: doc._id });
            return { deleted: true, previous };
          },
        },
      ],
    },
    {
      path: '/slow',
      endpoints: [
        {
          methods: READABLE,
          permission: allowAnyone,
          handler: async () => {
            await new Promise((resolve) => setTimeout(resolve, 400));
            return { finished: true };
          },
        },
      ],
    },
    {
      path: '/boom',
      endpoints: [
        {
          methods: READABLE,
          permission: allowAnyone,
          handler: () => {
            throw new Error('kaboom: secret internals');
          },
        },
      ],
    },
  ]),
};
