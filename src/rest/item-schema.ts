import { type ArgSpec, type ArgSpecs } from './args.js';
import { CONTEXTS, type Context, type FieldSchema, type ItemSchema } from './schema.js';

/**
 * The write arguments of a resource, taken from its item schema (`get_endpoint_args_for_item_schema`):
 * read-only fields are left out, and only `create` keeps the schema's defaults and required flags.
 */
export function argsFromSchema(schema: ItemSchema, mode: 'create' | 'update'): ArgSpecs {
  const args: ArgSpecs = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    if (property.readonly) continue;
    const { context: _context, readonly: _readonly, response: _response, ...arg } = property;
    if (mode === 'update') {
      delete arg.default;
      delete arg.required;
    }
    args[name] = arg;
  }
  return args;
}

/** The `context` argument of a read endpoint: the contexts the schema uses, in WordPress's order. */
export function contextArg(schema: ItemSchema, defaultContext: Context = 'view'): ArgSpec {
  const used = new Set<string>();
  const collect = (property: FieldSchema) => {
    property.context?.forEach((context) => used.add(context));
    Object.values(property.properties ?? {}).forEach(collect);
  };
  Object.values(schema.properties).forEach(collect);
  return {
    description: 'Scope under which the request is made; determines fields present in response.',
    type: 'string',
    enum: CONTEXTS.filter((context) => used.has(context)),
    default: defaultContext,
  };
}

/** The paging arguments of a collection: `page` from 1, `per_page` from 1 to 100. */
export function collectionArgs(defaultPerPage = 10): ArgSpecs {
  return {
    page: { description: 'Current page of the collection.', type: 'integer', default: 1, minimum: 1 },
    per_page: {
      description: 'Maximum number of items to be returned in result set.',
      type: 'integer',
      default: defaultPerPage,
      minimum: 1,
      maximum: 100,
    },
    offset: { description: 'Offset the result set by a specific number of items.', type: 'integer', minimum: 0 },
  };
}

/** Removes the fields (and nested properties) whose `context` list leaves out `context`. */
export function filterByContext(schema: ItemSchema, data: unknown, context: Context): unknown {
  return Array.isArray(data)
    ? data.map((item) => filterObject(schema.properties, item, context))
    : filterObject(schema.properties, data, context);
}

function filterObject(properties: Record<string, FieldSchema>, data: unknown, context: Context): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  // Keys may be a client's (`__proto__` included): they stay keys, and no schema is looked up on a prototype.
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(data)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (property?.context && !property.context.includes(context)) continue;
    out[key] = property?.properties ? filterObject(property.properties, value, context) : value;
  }
  return out;
}
