import { type Deps } from '../../deps.js';
import { registryRoutes } from '../../rest/registry-routes.js';
import { allowAnyone, defineRoutes } from '../../rest/route.js';
import { canEditType, canListTypes, readableType, restPostTypes } from './type.permissions.js';
import { typeSchema } from './type.schema.js';
import { prepareType } from './type.serializer.js';

export const typeRoutes = defineRoutes<Deps>(
  'cms/v2',
  registryRoutes({
    path: '/types',
    schema: typeSchema,
    key: { name: 'type', description: 'An alphanumeric identifier for the post type.' },
    listPermission: canListTypes,
    itemPermission: allowAnyone,
    // In edit context, the types the caller cannot edit are left out.
    entries: (req) => restPostTypes().filter((type) => req.context !== 'edit' || canEditType(req, type)),
    keyOf: (type) => type.slug,
    find: readableType,
    prepare: prepareType,
  }),
);
