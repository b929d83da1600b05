import { allowBatchOf, type AllowBatch, type CompiledRoute } from './route.js';
import { mapSchema, PUBLIC_ARG_KEYWORDS, type FieldSchema, type ItemSchema } from './schema.js';

export interface RouteDescription {
  namespace: string;
  methods: string[];
  endpoints: { methods: string[]; allow_batch?: AllowBatch; args: Record<string, Record<string, unknown>> }[];
  schema?: Record<string, unknown>;
  _links?: { self: { href: string }[] };
}

/**
 * A route as the index (`'index'`) or OPTIONS (`'help'`, with the item schema) shows it,
 * after `WP_REST_Server::get_data_for_route`.
 */
export function describeRoute<D>(route: CompiledRoute<D>, apiRoot: string, mode: 'index' | 'help'): RouteDescription {
  const methods: string[] = [];
  const endpoints = route.endpoints.map(({ spec }) => {
    methods.push(...spec.methods.filter((method) => !methods.includes(method)));
    const args: Record<string, Record<string, unknown>> = {};
    for (const [name, arg] of Object.entries(spec.args ?? {})) args[name] = publicArg(arg);
    // WordPress shows `allow_batch` between `methods` and `args`, on every endpoint it applies to.
    const allowBatch = allowBatchOf(route.spec, spec);
    return { methods: [...spec.methods], ...(allowBatch ? { allow_batch: allowBatch } : {}), args };
  });
  const description: RouteDescription = { namespace: route.namespace, methods, endpoints };
  if (mode === 'help' && route.spec.schema) description.schema = publicSchema(route.spec.schema);
  if (!route.pattern.includes('(')) description._links = { self: [{ href: `${apiRoot}${route.pattern}` }] };
  return description;
}

function publicArg(arg: FieldSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const keyword of PUBLIC_ARG_KEYWORDS) {
    if (arg[keyword] !== undefined) out[keyword] = arg[keyword];
  }
  out.required = arg.required === true;
  return out;
}

/**
 * The item schema as clients see it: WordPress keeps `context` and `readonly` on each property;
 * `response` (ours, for the OpenAPI document) is left out.
 */
export function publicSchema(schema: ItemSchema): Record<string, unknown> {
  const { $schema: _declared, ...fields } = schema;
  const withoutNotes = mapSchema(fields, ({ response: _response, ...field }) => field);
  return { $schema: 'http://json-schema.org/draft-04/schema#', ...withoutNotes };
}

export function describeRoutes<D>(
  routes: readonly CompiledRoute<D>[],
  apiRoot: string,
  namespace?: string,
): Record<string, RouteDescription> {
  const out: Record<string, RouteDescription> = {};
  for (const route of routes) {
    if (namespace !== undefined && route.namespace !== namespace) continue;
    out[route.pattern] = describeRoute(route, apiRoot, 'index');
  }
  return out;
}

