import { lockKey } from '../locks/index.js';
import { type Deps } from '../../deps.js';
import { ifMatchOf } from '../../rest/conditional.js';
import { defineRestError } from '../../rest/errors.js';
import { contextArg, filterByContext } from '../../rest/item-schema.js';
import { pageOf, pageWindow } from '../../rest/pagination.js';
import { created } from '../../rest/rest-response.js';
import { BATCH_V1, CREATABLE, DELETABLE, defineRoutes, EDITABLE, READABLE } from '../../rest/route.js';
import { PostInvalidPage } from '../posts/index.js';
import { createMenuItem, deleteMenuItem, findMenuItem, updateMenuItem } from './menu-item.commands.js';
import { menuItemInput } from './menu-item.input.js';
import { canCreateMenuItems, canDeleteMenuItems, canEditMenuItems, canReadMenuItems } from './menu-item.permissions.js';
import { listMenuItems } from './menu-item.queries.js';
import { menuItemListArgs, menuItemSchema, menuItemWriteArgs } from './menu-item.schema.js';
import { linkedObjects, prepareMenuItem, prepareOne } from './menu-item.serializer.js';
import { savesOf } from '../../registry/saved-fields.js';
import { AS_OF_ARGS, asksAsOf } from '../../rest/as-of.js';
import { getMenuItemAt, listMenuItemsAt, restoreMenuItemAt } from './menu-item.as-of.js';

const TrashNotSupported = defineRestError('rest_trash_not_supported', "Menu items do not support trashing. Set 'force=true' to delete.", 501);

const idArg = { id: { description: 'Unique identifier for the post.', type: 'integer' as const } };

/** `/menu-items` and `/menu-items/<id>` (WordPress's menu items controller), on the change-log kernel. */
export const menuItemRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: '/menu-items',
    schema: menuItemSchema,
    allowBatch: BATCH_V1,
    endpoints: [
      {
        methods: READABLE,
        args: { context: contextArg(menuItemSchema), ...menuItemListArgs, ...AS_OF_ARGS },
        permission: canReadMenuItems,
        response: { body: 'items' },
        handler: async (req, deps) => {
          if (asksAsOf(req)) return listMenuItemsAt(req, deps);
          const window = pageWindow(req.params);
          const { docs, total, menuTag } = await listMenuItems(req, deps, window);
          const linked = await linkedObjects(deps, docs, req);
          const response = pageOf(docs.map((doc) => prepareMenuItem(doc, req, deps, linked)), total, window, PostInvalidPage);
          // The items of one menu carry the menu's state, which its restore takes as `If-Match`.
          if (menuTag) response.headers.ETag = `"${menuTag}"`;
          return response;
        },
      },
      {
        methods: CREATABLE,
        changes: 'content',
        args: menuItemWriteArgs('create'),
        saves: savesOf('menu-items'),
        permission: canCreateMenuItems,
        response: { status: 201 },
        answerContext: 'edit',
        handler: async (req, deps) => {
          const doc = await createMenuItem(deps, await menuItemInput(req, deps, null), req.user.id);
          return created(await prepareOne(doc, req, deps), req.url(`/cms/v2/menu-items/${doc._id}`));
        },
      },
    ],
  },
  {
    path: '/menu-items/(?P<id>[\\d]+)',
    schema: menuItemSchema,
    allowBatch: BATCH_V1,
    endpoints: [
      {
        methods: READABLE,
        args: { ...idArg, context: contextArg(menuItemSchema), ...AS_OF_ARGS },
        permission: canReadMenuItems,
        handler: async (req, deps) => (asksAsOf(req) ? getMenuItemAt(req, deps) : prepareOne(await findMenuItem(deps, Number(req.params.id)), req, deps)),
      },
      {
        methods: EDITABLE,
        changes: 'content',
        args: { ...idArg, ...menuItemWriteArgs('update') },
        saves: savesOf('menu-items'),
        permission: canEditMenuItems,
        handler: async (req, deps) => {
          const current = await findMenuItem(deps, Number(req.params.id));
          const fields = await menuItemInput(req, deps, current);
          const doc = await updateMenuItem(deps, current._id, () => fields, req.user.id, { ifMatch: ifMatchOf(req), current, lock: { key: lockKey('nav_menu_item', current._id), id: current._id } });
          return prepareOne(doc, req, deps);
        },
      },
      {
        methods: DELETABLE,
        changes: 'content',
        args: { ...idArg, force: { type: 'boolean', default: false, description: 'Whether to bypass Trash and force deletion.' } },
        permission: canDeleteMenuItems,
        answerContext: 'asked',
        handler: async (req, deps) => {
          const current = await findMenuItem(deps, Number(req.params.id));
          // WordPress answers 501, not 405: the method exists; menu items simply have no trash.
          if (req.params.force !== true) throw new TrashNotSupported();
          const { _links: _omitted, ...previous } = await prepareOne(current, req, deps);
          await deleteMenuItem(deps, current, req.user.id, ifMatchOf(req));
          return { deleted: true, previous: filterByContext(menuItemSchema, previous, req.context) };
        },
      },
    ],
  },
  {
    path: '/menu-items/(?P<id>[\\d]+)/restore',
    schema: menuItemSchema,
    endpoints: [
      {
        methods: CREATABLE,
        changes: 'content',
        args: { ...idArg, ...AS_OF_ARGS },
        permission: canEditMenuItems,
        answerContext: 'edit',
        handler: restoreMenuItemAt,
      },
    ],
  },
]);
