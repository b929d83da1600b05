import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { AS_OF_ARGS, AS_OF_POSITION_HEADER, restorePosition } from '../../rest/as-of.js';
import { ifMatchOf } from '../../rest/conditional.js';
import { RestResponse } from '../../rest/rest-response.js';
import { CREATABLE, defineRoutes } from '../../rest/route.js';
import { menuItemSchema, prepareMenuItems, restoreMenuAt } from '../menu-items/index.js';
import { termsCollection, CannotUpdateTerm, TermInvalid } from '../terms/index.js';

/**
 * `POST /menus/<id>/restore` with `as_of` or `as_of_position`: every item of the menu returns to
 * its state at that point, one command per item (see `restoreMenuAt`); answered with the menu's
 * items and, as `ETag`, its new state, which `If-Match` on the next restore names.
 */
export const menuRestoreRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: '/menus/(?P<id>[\\d]+)/restore',
    // It answers with the menu's items.
    schema: menuItemSchema,
    endpoints: [
      {
        methods: CREATABLE,
        changes: 'content',
        response: { body: 'items' },
        args: { id: { description: 'Unique identifier for the term.', type: 'integer' }, ...AS_OF_ARGS },
        permission: (req) => {
          if (!can(req.user, 'edit_theme_options')) throw new CannotUpdateTerm(req);
          return true;
        },
        answerContext: 'edit',
        handler: async (req, deps) => {
          const menu = await termsCollection(deps.store.db).findOne({ _id: Number(req.params.id), taxonomy: 'nav_menu' }, { projection: { _id: 1 } });
          if (!menu) throw new TermInvalid();
          const position = await restorePosition(req, deps.store.db, deps.clock());
          const { items, tag } = await restoreMenuAt(deps, req, menu._id, position, ifMatchOf(req));
          return new RestResponse(await prepareMenuItems(items, req, deps), 200, { ETag: `"${tag}"`, [AS_OF_POSITION_HEADER]: String(position) });
        },
      },
    ],
  },
]);
