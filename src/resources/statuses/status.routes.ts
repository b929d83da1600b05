import { type Deps } from '../../deps.js';
import { registryRoutes } from '../../rest/registry-routes.js';
import { defineRoutes } from '../../rest/route.js';
import { findPostStatus, POST_STATUSES } from '../../registry/post-statuses.js';
import { canGetStatus, canListStatuses, canReadStatus } from './status.permissions.js';
import { statusSchema } from './status.schema.js';
import { prepareStatus } from './status.serializer.js';

export const statusRoutes = defineRoutes<Deps>(
  'cms/v2',
  registryRoutes({
    path: '/statuses',
    schema: statusSchema,
    key: { name: 'status', description: 'An alphanumeric identifier for the status.' },
    listPermission: canListStatuses,
    itemPermission: canGetStatus,
    entries: (req) => POST_STATUSES.filter((status) => (!status.internal || status.slug === 'trash') && canReadStatus(req, status)),
    keyOf: (status) => status.slug,
    // canGetStatus has refused a status that does not exist.
    find: (req) => findPostStatus(String(req.params.status))!,
    prepare: prepareStatus,
  }),
);
