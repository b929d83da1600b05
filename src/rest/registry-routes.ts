import { type ArgSpecs } from './args.js';
import { contextArg } from './item-schema.js';
import { type RestRequest } from './rest-request.js';
import { keyedCollection } from './rest-response.js';
import { READABLE, type EndpointSpec, type Permission, type RouteSpec } from './route.js';
import { type ItemSchema } from './schema.js';

/**
 * A registry served read-only, as WordPress's statuses, post types, taxonomies, widget types,
 * sidebars and menu locations controllers serve theirs: a collection of its entries and an item
 * route naming one.
 */
export interface RegistrySpec<D, T> {
  /** The collection's path (`/statuses`); the item route is under it. */
  path: string;
  schema: ItemSchema;
  /** The item route's URL parameter, matching `pattern` (`[\w-]+` unless given). */
  key: { name: string; description: string; pattern?: string };
  /** The collection's parameters beside `context`. */
  listArgs?: ArgSpecs;
  listPermission: Permission<D>;
  itemPermission: Permission<D>;
  /** The entries the caller is shown in the collection, in order. */
  entries(req: RestRequest, deps: D): Iterable<T> | Promise<Iterable<T>>;
  /** Given, the collection is an object keyed by it (statuses, types); else a list. */
  keyOf?: (entry: T) => string;
  /** The entry the item route names, or the registry's 404. */
  find(req: RestRequest, deps: D): T | Promise<T>;
  prepare(entry: T, req: RestRequest, deps: D): unknown;
  /** The item route's endpoints beside its read (a sidebar's update). */
  itemEndpoints?: EndpointSpec<D>[];
}

export function registryRoutes<D, T>(spec: RegistrySpec<D, T>): Omit<RouteSpec<D>, 'namespace'>[] {
  const { path, schema, key, keyOf, prepare } = spec;
  return [
    {
      path,
      schema,
      endpoints: [
        {
          methods: READABLE,
          args: { context: contextArg(schema), ...spec.listArgs },
          permission: spec.listPermission,
          response: { body: keyOf ? 'keyed-items' : 'items' },
          handler: async (req, deps) => {
            const entries = [...(await spec.entries(req, deps))];
            if (!keyOf) return entries.map((entry) => prepare(entry, req, deps));
            const data: Record<string, unknown> = {};
            for (const entry of entries) data[keyOf(entry)] = prepare(entry, req, deps);
            return keyedCollection(data);
          },
        },
      ],
    },
    {
      path: `${path}/(?P<${key.name}>${key.pattern ?? '[\\w-]+'})`,
      schema,
      endpoints: [
        {
          methods: READABLE,
          args: { [key.name]: { description: key.description, type: 'string' }, context: contextArg(schema) },
          permission: spec.itemPermission,
          handler: async (req, deps) => prepare(await spec.find(req, deps), req, deps),
        },
        ...(spec.itemEndpoints ?? []),
      ],
    },
  ];
}
