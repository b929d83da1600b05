import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { type ArgSpecs } from '../../rest/args.js';
import { ForbiddenContext } from '../../rest/errors.js';
import { contextArg } from '../../rest/item-schema.js';
import { pageOf, pageWindow } from '../../rest/pagination.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { RestResponse } from '../../rest/rest-response.js';
import { CREATABLE, DELETABLE, defineRoutes, EDITABLE, READABLE, type RouteSpec } from '../../rest/route.js';
import { siteTimezone } from '../settings/index.js';
import { PostInvalidPage, postListArgs, canDeletePost, canEditPost } from '../posts/index.js';
import { attachableParent, createAttachment, deleteAttachment, updateAttachment } from './media.commands.js';
import { CannotCreatePost, CannotDeletePost, CannotEditPost, ForbiddenPostTypeContext } from '../post-errors.js';
import { TrashNotSupported } from './media.errors.js';
import { attachments, canReadAttachment, findAttachment, mediaListQuery, parentsOf } from './media.queries.js';
import { attachmentType, MEDIA_TYPE_ENUM, mediaSchema, mediaWriteArgs } from './media.schema.js';
import { prepareAttachment } from './media.serializer.js';
import { savesOf } from '../../registry/saved-fields.js';

const routeItem = (req: RestRequest, deps: Deps) => req.memo('item', () => findAttachment(deps, req.params.id));

const ids = (description: string) => ({ description, type: 'array', items: { type: 'integer' }, default: [] }) as const;

/** `WP_REST_Attachments_Controller::get_collection_params`: the posts list's, with media's statuses, parents and types. */
const listArgs: ArgSpecs<RestRequest> = {
  ...postListArgs(attachmentType, { allowed: ['inherit', 'private', 'trash'], public: 'inherit' }),
  context: contextArg(mediaSchema),
  parent: ids('Limit result set to items with particular parent IDs.'),
  parent_exclude: ids('Limit result set to all items except those of a particular parent ID.'),
  media_type: { description: 'Limit result set to attachments of a particular media type.', type: 'string', enum: MEDIA_TYPE_ENUM },
  mime_type: { description: 'Limit result set to attachments of a particular MIME type.', type: 'string' },
};

const idArg = { id: { description: 'Unique identifier for the post.', type: 'integer' } } as const;

async function prepareOne(req: RestRequest, deps: Deps, doc: Parameters<typeof prepareAttachment>[0]) {
  return prepareAttachment(doc, req, deps.siteUrl, await siteTimezone(deps));
}

/** `/media` and `/media/<id>` (WordPress's attachments controller). */
export const mediaRoutes: RouteSpec<Deps>[] = defineRoutes<Deps>('cms/v2', [
  {
    path: '/media',
    schema: mediaSchema,
    endpoints: [
      {
        methods: READABLE,
        args: listArgs,
        response: { body: 'items' },
        permission: (req) => {
          if (req.context === 'edit' && !can(req.user, attachmentType.caps.edit_posts)) throw new ForbiddenPostTypeContext(req);
          return true;
        },
        handler: async (req, deps) => {
          const { filter, sort, include, slugs } = await mediaListQuery(req, deps);
          const window = pageWindow(req.params);
          const [total, found] = await Promise.all([
            attachments(deps).countDocuments(filter),
            attachments(deps).find(filter).sort(sort).skip(window.skip).limit(window.perPage).toArray(),
          ]);
          if (include) found.sort((a, b) => include.indexOf(a._id) - include.indexOf(b._id));
          if (slugs) found.sort((a, b) => slugs.indexOf(a.slug) - slugs.indexOf(b.slug));
          // As WordPress's list: items of posts the caller may not read are left out of the page.
          const parents = await parentsOf(deps, found);
          const readable = found.filter((doc) => canReadAttachment(req.user, doc, parents.get(doc.parent) ?? null));
          const timezone = await siteTimezone(deps);
          return pageOf(readable.map((doc) => prepareAttachment(doc, req, deps.siteUrl, timezone)), total, window, PostInvalidPage);
        },
      },
      {
        methods: CREATABLE,
        args: mediaWriteArgs('create'),
        saves: savesOf('media'),
        body: 'stream',
        response: { status: 201 },
        permission: async (req, deps) => {
          if (!can(req.user, attachmentType.caps.create_posts)) throw new CannotCreatePost(req);
          // Checked again once a form's fields are read; a query's `post` is refused before the upload is read.
          if (req.params.post !== undefined) await attachableParent(req, deps, Number(req.params.post));
          return true;
        },
        answerContext: 'edit',
        handler: async (req, deps) => {
          const timezone = await siteTimezone(deps);
          const doc = await createAttachment(req, deps);
          const location = req.url(`/cms/v2/media/${doc._id}`);
          return new RestResponse(prepareAttachment(doc, req, deps.siteUrl, timezone), 201, { Location: location, 'X-WP-Upload-Attachment-ID': String(doc._id) });
        },
      },
    ],
  },
  {
    path: '/media/(?P<id>[\\d]+)',
    schema: mediaSchema,
    endpoints: [
      {
        methods: READABLE,
        args: { ...idArg, context: contextArg(mediaSchema) },
        permission: async (req, deps) => {
          const doc = await routeItem(req, deps);
          if (req.context === 'edit' && !canEditPost(req.user, doc)) throw new ForbiddenContext(req, {});
          const parents = await parentsOf(deps, [doc]);
          return canReadAttachment(req.user, doc, parents.get(doc.parent) ?? null);
        },
        handler: async (req, deps) => prepareOne(req, deps, await routeItem(req, deps)),
      },
      {
        methods: EDITABLE,
        args: { ...idArg, ...mediaWriteArgs('update') },
        saves: savesOf('media'),
        permission: async (req, deps) => {
          if (!canEditPost(req.user, await routeItem(req, deps))) throw new CannotEditPost(req);
          return true;
        },
        answerContext: 'edit',
        handler: async (req, deps) => {
          const doc = await updateAttachment(req, deps, await routeItem(req, deps));
          return prepareOne(req, deps, doc);
        },
      },
      {
        methods: DELETABLE,
        args: { ...idArg, force: { type: 'boolean', default: false, description: 'Whether to bypass Trash and force deletion.' } },
        permission: async (req, deps) => {
          if (!canDeletePost(req.user, await routeItem(req, deps))) throw new CannotDeletePost(req);
          return true;
        },
        answerContext: 'edit',
        handler: async (req, deps) => {
          // Media trash is off in WordPress (`MEDIA_TRASH`): only a forced delete.
          if (req.params.force !== true) throw new TrashNotSupported();
          const current = await routeItem(req, deps);
          const previous = await prepareOne(req, deps, current);
          delete previous._links;
          await deleteAttachment(req, deps, current);
          return { deleted: true, previous };
        },
      },
    ],
  },
]);
