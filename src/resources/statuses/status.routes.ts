import { type Deps } from '../../deps.js';
import { contextArg } from '../../rest/item-schema.js';
import { defineRoutes, READABLE } from '../../rest/route.js';
import { keyedCollection } from '../../rest/rest-response.js';
import { findPostStatus, POST_STATUSES } from '../../registry/post-statuses.js';
import { canGetStatus, canListStatuses, canReadStatus } from './status.permissions.js';
import { statusSchema } from './status.schema.js';
import { prepareStatus } from './status.serializer.js';

export const statusRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: '/statuses',
    schema: statusSchema,
    endpoints: [
      {
        methods: READABLE,
        args: { context: contextArg(statusSchema) },
        permission: canListStatuses,
        response: { body: 'keyed-items' },
        handler: (req) => {
          const data: Record<string, unknown> = {};
          for (const status of POST_STATUSES) {
            if (status.internal && status.slug !== 'trash') continue;
            if (canReadStatus(req, status)) data[status.slug] = prepareStatus(status, req);
          }
          return keyedCollection(data);
        },
      },
    ],
  },
  {
    path: '/statuses/(?P<status>[\\w-]+)',
    schema: statusSchema,
    endpoints: [
      {
        methods: READABLE,
        args: {
          status: { description: 'An alphanumeric identifier for the status.', type: 'string' },
          context: contextArg(statusSchema),
        },
        permission: canGetStatus,
        handler: (req) => prepareStatus(findPostStatus(String(req.params.status))!, req),
      },
    ],
  },
]);
