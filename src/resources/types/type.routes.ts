import { type Deps } from '../../deps.js';
import { keyedCollection } from '../../rest/rest-response.js';
import { contextArg } from '../../rest/item-schema.js';
import { allowAnyone, defineRoutes, READABLE } from '../../rest/route.js';
import { canEditType, canListTypes, readableType, restPostTypes } from './type.permissions.js';
import { typeSchema } from './type.schema.js';
import { prepareType } from './type.serializer.js';

export const typeRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: '/types',
    schema: typeSchema,
    endpoints: [
      {
        methods: READABLE,
        args: { context: contextArg(typeSchema) },
        permission: canListTypes,
        response: { body: 'keyed-items' },
        handler: (req) => {
          const data: Record<string, unknown> = {};
          for (const type of restPostTypes()) {
            // In edit context, the types the caller cannot edit are left out.
            if (req.context === 'edit' && !canEditType(req, type)) continue;
            data[type.slug] = prepareType(type, req);
          }
          return keyedCollection(data);
        },
      },
    ],
  },
  {
    path: '/types/(?P<type>[\\w-]+)',
    schema: typeSchema,
    endpoints: [
      {
        methods: READABLE,
        args: {
          type: { description: 'An alphanumeric identifier for the post type.', type: 'string' },
          context: contextArg(typeSchema),
        },
        permission: allowAnyone,
        handler: (req) => prepareType(readableType(req), req),
      },
    ],
  },
]);
