import { type Deps } from '../../deps.js';
import { contextArg } from '../../rest/item-schema.js';
import { defineRoutes, READABLE, type EndpointSpec } from '../../rest/route.js';
import { canViewBlockType, canViewBlockTypes } from './block-type.permissions.js';
import { findBlockType, servedBlockTypes } from './block-type.queries.js';
import { blockTypeSchema } from './block-type.schema.js';
import { prepareBlockType } from './block-type.serializer.js';

const namespaceArg = { description: 'Block namespace.', type: 'string' } as const;

// WordPress lists every block type in one answer, without pagination; `namespace` compares the part before the slash exactly.
const listEndpoint: EndpointSpec<Deps> = {
  methods: READABLE,
  args: { context: contextArg(blockTypeSchema), namespace: namespaceArg },
  permission: canViewBlockTypes,
  response: { body: 'items' },
  handler: async (req, deps) => {
    const namespace = req.params.namespace === undefined ? undefined : String(req.params.namespace);
    const blocks = await servedBlockTypes(req, deps);
    return blocks.filter((block) => namespace === undefined || block.name.split('/')[0] === namespace).map((block) => prepareBlockType(block, req));
  },
};

export const blockTypeRoutes = defineRoutes<Deps>('cms/v2', [
  { path: '/block-types', schema: blockTypeSchema, endpoints: [listEndpoint] },
  { path: '/block-types/(?P<namespace>[a-zA-Z0-9_-]+)', schema: blockTypeSchema, endpoints: [listEndpoint] },
  {
    path: '/block-types/(?P<namespace>[a-zA-Z0-9_-]+)/(?P<name>[a-zA-Z0-9_-]+)',
    schema: blockTypeSchema,
    endpoints: [
      {
        methods: READABLE,
        args: {
          name: { description: 'Block name.', type: 'string' },
          namespace: namespaceArg,
          context: contextArg(blockTypeSchema),
        },
        permission: canViewBlockType,
        handler: async (req, deps) => prepareBlockType((await findBlockType(req, deps, `${String(req.params.namespace)}/${String(req.params.name)}`))!, req),
      },
    ],
  },
]);
