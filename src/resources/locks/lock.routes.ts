import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { type RestErrorClass, WriteConflict } from '../../rest/errors.js';
import { itemPath } from '../../rest/item-route.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { CREATABLE, defineRoutes, DELETABLE, READABLE, type Permission, type RouteSpec } from '../../rest/route.js';
import { CannotEditPost, PostInvalidId } from '../post-errors.js';
import { routeItemOf, type RevisionedItem, type RevisionedType } from '../revisions/index.js';
import { currentLock, releaseLock, takeLock, type LockTarget } from './lock.commands.js';
import { CannotReleaseLock, NotLocked } from './lock.errors.js';
import { lockSchema } from './lock.schema.js';
import { prepareLock } from './lock.serializer.js';

/** The key of an item's lock: its type and the id its routes name it by. */
export const lockKey = (postType: string, id: number | string) => `${postType}:${id}`;

/**
 * How a type's update refuses a caller, for its lock routes to refuse alike: the permission it
 * checks before reading the item (templates and menu items ask for a capability first), and the
 * 404 a GET of an unknown item answers with. Without them: the posts controller's.
 */
export interface LockAccess {
  readonly permission?: Permission<Deps>;
  readonly NotFound?: RestErrorClass;
}

/**
 * `/<rest_base>/<id>/lock` of a type whose items are edited through the API: WordPress's post
 * lock (`wp_check_post_lock`, `wp_set_post_lock`, the heartbeat's refresh and the take-over
 * dialog), as a resource. Locks are advisory, as WordPress's are: no write is refused for one.
 */
export function lockRoutes<Item extends RevisionedItem>(type: RevisionedType<Item>, access: LockAccess = {}): RouteSpec<Deps>[] {
  const { route } = type;
  const NotFound = access.NotFound ?? PostInvalidId;
  const lockedItem = (req: RestRequest, deps: Deps) => routeItemOf(req, deps, type, 'id', NotFound);
  const keyOf = (item: Item) => lockKey(type.postType.slug, route.idOf(item));
  const targetOf = (item: Item): LockTarget => ({ key: keyOf(item), id: item._id, type: type.postType.slug });

  // The item must exist (the 404 of a GET of it), and the caller must be allowed to edit it (the 401/403 of an update).
  const canEditItem: Permission<Deps> = async (req, deps) => {
    if (access.permission) await access.permission(req, deps);
    if (!route.names(req.params.id)) throw new NotFound();
    const item = await lockedItem(req, deps);
    if (!type.canEdit(req.user, item)) throw new CannotEditPost(req);
    return true;
  };
  const args = route.idsHoldSlashes ? { id: route.idArg('The ID of the locked item.') } : { id: route.idArg('Unique identifier for the item.') };

  return defineRoutes<Deps>(route.namespace, [
    {
      path: `/${route.base}/(?P<id>${route.idPattern})/lock`,
      schema: lockSchema,
      endpoints: [
        {
          methods: READABLE,
          args,
          permission: canEditItem,
          handler: async (req, deps) => {
            const item = await lockedItem(req, deps);
            const lock = await currentLock(deps, keyOf(item), { fresh: true, item: item._id });
            if (!lock) throw new NotLocked();
            return prepareLock(lock, req, itemPath(route, item));
          },
        },
        {
          // Takes the lock, or refreshes it for its holder; another's lock only with `take_over`.
          methods: CREATABLE,
          changes: 'content',
          args: {
            ...args,
            take_over: { description: "Whether to take the lock over from another user who holds it.", type: 'boolean', default: false },
          },
          permission: canEditItem,
          handler: async (req, deps) => {
            const item = await lockedItem(req, deps);
            const lock = await takeLock(deps, targetOf(item), req.user.id, { takeOver: req.params.take_over === true });
            return prepareLock(lock, req, itemPath(route, item));
          },
        },
        {
          // Its holder releases it, and so may whoever may edit others' items (WordPress's take-over right).
          methods: DELETABLE,
          changes: 'content',
          args,
          permission: canEditItem,
          response: { body: 'deleted' },
          handler: async (req, deps) => {
            const item = await lockedItem(req, deps);
            const lock = await currentLock(deps, keyOf(item), { fresh: true, item: item._id });
            if (!lock) throw new NotLocked();
            if (lock.user !== req.user.id && !can(req.user, type.postType.caps.edit_others_posts)) throw new CannotReleaseLock(req);
            // Refreshed or taken over since it was read: the caller decided on a lock that is no longer there.
            if (!(await releaseLock(deps, targetOf(item), lock, req.user.id))) throw new WriteConflict();
            return { deleted: true, previous: prepareLock(lock, req, itemPath(route, item)) };
          },
        },
      ],
    },
  ]);
}
