import { type RestServer } from './rest-server.js';
import { splitRoutePattern, type CompiledRoute, type EndpointSpec, type HttpMethod, type ResponseBody } from './route.js';
import { REST_DATE } from '../lib/site-dates.js';
import { mapSchema, toJsonSchema, typesOf, type FieldSchema, type ItemSchema } from './schema.js';

type Json = Record<string, unknown>;

interface PathParameter {
  name: string;
  pattern: string;
}

/** `/cms/v2/posts/(?P<id>[\d]+)` -> `/cms/v2/posts/{id}`, with the path parameters' patterns. */
function templatePath(pattern: string): { path: string; parameters: PathParameter[] } {
  const parts = splitRoutePattern(pattern);
  return {
    path: parts.map((part) => (typeof part === 'string' ? part : `{${part.name}}`)).join(''),
    parameters: parts.flatMap((part) => (typeof part === 'string' ? [] : [{ name: part.name, pattern: `^${part.regex}$` }])),
  };
}

const ERROR_SCHEMA: Json = {
  type: 'object',
  required: ['code', 'message', 'data'],
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    data: {
      type: 'object',
      required: ['status'],
      properties: {
        status: { type: 'integer', minimum: 400, maximum: 599 },
        params: { description: 'The invalid (an object of messages) or missing (a list of names) parameters.', type: ['object', 'array'] },
        details: { description: 'Each invalid parameter\'s own error.', type: 'object' },
      },
    },
  },
};

const errorResponse = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/**
 * WordPress's `date-time` is RFC 3339 with the offset optional (`rest_parse_date`), and dates are
 * sent without one, so the document states the pattern instead of OpenAPI's stricter format.
 */
function documentFormats(schema: FieldSchema): FieldSchema {
  return mapSchema(schema, (field) => {
    if (field.format !== 'date-time') return field;
    const { format: _format, ...rest } = field;
    return { ...rest, pattern: REST_DATE.source };
  });
}

/**
 * A field as responses show it: its `response` notes applied, without the input's `required`, and
 * without the fields no context shows (a user's `password`).
 */
function sentField(field: FieldSchema): FieldSchema {
  return mapSchema(field, ({ response, required: _required, ...rest }) => {
    // A note may take a keyword away (`format: undefined`) as well as change one.
    const sent = Object.fromEntries(Object.entries({ ...rest, ...response }).filter(([, value]) => value !== undefined)) as FieldSchema;
    if (sent.properties) {
      sent.properties = Object.fromEntries(Object.entries(sent.properties).filter(([, property]) => property.context?.length !== 0));
    }
    return sent;
  });
}

/** The document's schemas: each item schema once, under its title, referred to by every response. */
class Components {
  readonly schemas: Record<string, Json> = { Error: ERROR_SCHEMA };
  private readonly names = new Map<ItemSchema, string>();

  itemRef(schema: ItemSchema | undefined): Json {
    if (!schema) return { type: 'object' };
    let name = this.names.get(schema);
    if (!name) {
      const { $schema: _draft, ...fields } = schema;
      const json = toJsonSchema(documentFormats(sentField(fields)));
      (json.properties as Json)._links = { description: 'Links to related resources, by relation.', type: 'object' };
      name = this.unusedName(schemaName(schema.title), json);
      this.schemas[name] = json;
      this.names.set(schema, name);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  /** The title's name, or the first free `name2`, `name3`... when a different schema has it. */
  private unusedName(base: string, json: Json): string {
    const text = JSON.stringify(json);
    for (let n = 1; ; n++) {
      const name = n === 1 ? base : `${base}${n}`;
      if (!this.schemas[name] || JSON.stringify(this.schemas[name]) === text) return name;
    }
  }
}

function schemaName(title: string): string {
  return title.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep: string, c: string) => c.toUpperCase());
}

function responseBodySchema(body: ResponseBody, item: Json): Json {
  const deleted = {
    type: 'object',
    required: ['deleted', 'previous'],
    properties: { deleted: { type: 'boolean', enum: [true] }, previous: item },
  };
  switch (body) {
    case 'item':
      return item;
    case 'items':
      return { type: 'array', items: item };
    case 'keyed-items':
      return { type: 'object', additionalProperties: item };
    case 'deleted':
      return deleted;
    case 'trashed-or-deleted':
      return { anyOf: [deleted, item] };
    default:
      return toJsonSchema(documentFormats(sentField(body)));
  }
}

function parameterSchema(param: PathParameter, arg: FieldSchema | undefined): Json {
  if (!arg) return { type: 'string', pattern: param.pattern };
  const schema = toJsonSchema(documentFormats(arg));
  // An integer in a URL is digits: never negative.
  if (typesOf(arg).includes('integer')) return { ...schema, minimum: Math.max(arg.minimum ?? 0, 0) };
  return { ...schema, pattern: param.pattern };
}

interface Operation<D> {
  route: CompiledRoute<D>;
  path: string;
  parameters: PathParameter[];
  method: HttpMethod;
  spec: EndpointSpec<D>;
  operationId: string;
}

/** An OpenAPI 3.1 document built from the same route declarations that serve requests. */
export function openApiDocument<D>(server: RestServer<D>, apiRoot: string): Json {
  const components = new Components();
  const operations: Operation<D>[] = [];
  for (const route of server.routes) {
    const { path, parameters } = templatePath(route.pattern);
    for (const { spec } of route.endpoints) {
      for (const method of spec.methods) {
        operations.push({ route, path, parameters, method, spec, operationId: operationIdOf(method, path) });
      }
    }
  }

  const paths: Record<string, Json> = {};
  const tags = new Set<string>();
  for (const operation of operations) {
    tags.add(tagOf(operation.path, operation.route.namespace));
    (paths[operation.path] ??= {})[operation.method.toLowerCase()] = describeOperation(operation, operations, components);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Content management service', version: '2' },
    servers: [{ url: apiRoot }],
    // Anonymous unless the request carries HTTP Basic credentials. A sign-in session's cookie is left
    // out on purpose: it authenticates only with a nonce from a sign-in outside this document
    // (`/cms-admin/session`, not a REST route), which no client of this document can follow.
    security: [{}, { basic: [] }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: { basic: { type: 'http', scheme: 'basic' } },
    },
  };
}

/** An operation's group: the resource its path names after the namespace (`posts` for `/cms/v2/posts/{id}/revisions`). */
function tagOf(path: string, namespace: string | undefined): string {
  const rest = namespace ? path.slice(namespace.length + 1) : path;
  return /^\/([^/{]+)/.exec(rest)?.[1] ?? namespace ?? 'index';
}

function operationIdOf(method: string, path: string): string {
  return `${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c?: string) => (c ?? '').toUpperCase())}`;
}

/** Every write takes one (`http/idempotency.ts`). */
const IDEMPOTENCY_KEY: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Sent again with the same key (for 24 hours), the request is answered as the first time, with `Idempotent-Replayed: true`, and changes nothing more. The same key with another request: 422; while the first is answered: 409.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

function describeOperation<D>(operation: Operation<D>, all: Operation<D>[], components: Components): Json {
  const { route, parameters, method, spec } = operation;
  const args = Object.entries(spec.args ?? {});
  const argOf = (name: string): FieldSchema | undefined => spec.args?.[name];
  const bodyArgs = args.filter(([name]) => !parameters.some((p) => p.name === name));
  // As in WordPress, GET and DELETE read their arguments from the query string; writes from the body.
  const inQuery = method === 'GET' || method === 'DELETE';

  const response = spec.response ?? {};
  const body = response.body ?? (method === 'DELETE' ? 'deleted' : 'item');
  const item = components.itemRef(route.spec.schema);
  const schema = responseBodySchema(body, item);
  const success: Json = {
    description: 'Success',
    content: {
      'application/json': { schema },
      ...(response.ndjson ? { 'application/x-ndjson': { schema: item } } : {}),
      // Server-sent events: `event`, `id` and `data` lines, the data one JSON item each.
      ...(response.eventStream ? { 'text/event-stream': { schema: { type: 'string' } } } : {}),
    },
  };
  if (body === 'items' && spec.args?.page) {
    const count = { required: true, schema: { type: 'string', pattern: '^\\d+$' } };
    success.headers = {
      'X-WP-Total': { description: 'The number of items in the collection.', ...count },
      'X-WP-TotalPages': { description: 'The number of pages of the collection.', ...count },
    };
  }
  const links = linksFrom(operation, body, response.status ?? 200, all);
  if (Object.keys(links).length) success.links = links;

  const responses: Json = {
    [String(response.status ?? 200)]: success,
    '4XX': errorResponse('The request was refused: the error names the reason.'),
    '503': errorResponse('The database is unavailable; try again.'),
  };
  // WordPress's `rest_trash_not_supported`: an item that cannot be trashed is deleted only with `force=true`.
  if (method === 'DELETE' && body === 'deleted' && argOf('force')) responses['501'] = errorResponse('This resource cannot be trashed: set `force=true`.');

  // A streamed body (an upload) is the file itself, or a form with it; its other fields may also come in the query string.
  const streamed = spec.body === 'stream';
  const described: Json = {
    operationId: operation.operationId,
    tags: [tagOf(operation.path, operation.route.namespace)],
    parameters: [
      ...parameters.map((p) => pathParameter(p, argOf(p.name))),
      ...(inQuery || streamed ? bodyArgs.map(([name, arg]) => queryParameter(name, arg)) : []),
      ...(method === 'GET' ? [] : [IDEMPOTENCY_KEY]),
    ],
    responses,
  };
  if (streamed) {
    const properties = Object.fromEntries(bodyArgs.map(([name, arg]) => [name, toJsonSchema(documentFormats(arg))]));
    described.requestBody = {
      required: true,
      description: 'The file as the raw body, named by `Content-Disposition: attachment; filename="<name>"`; or a form whose `file` field is the file.',
      content: {
        'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
        'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' }, ...properties }, required: ['file'] } },
      },
    };
  } else if (!inQuery && bodyArgs.length) {
    const properties = Object.fromEntries(bodyArgs.map(([name, arg]) => [name, toJsonSchema(documentFormats(arg))]));
    const required = bodyArgs.filter(([, arg]) => arg.required).map(([name]) => name);
    const bodySchema = { type: 'object', properties, ...(required.length ? { required } : {}) };
    described.requestBody = {
      required: required.length > 0,
      content: {
        'application/json': { schema: bodySchema },
        'application/x-www-form-urlencoded': { schema: bodySchema },
      },
    };
  }
  return described;
}

function pathParameter(param: PathParameter, arg: FieldSchema | undefined): Json {
  return {
    name: param.name,
    in: 'path',
    required: true,
    ...(arg?.description ? { description: arg.description } : {}),
    schema: parameterSchema(param, arg),
    // An id whose pattern admits `/` is one schemathesis sends `%2F` in only when an example shows a `/`.
    ...(arg?.examples?.length ? { examples: Object.fromEntries(arg.examples.map((value, i) => [`example${i + 1}`, { value }])) } : {}),
  };
}

function queryParameter(name: string, arg: FieldSchema): Json {
  return {
    name,
    in: 'query',
    required: arg.required === true,
    ...(arg.description ? { description: arg.description } : {}),
    schema: toJsonSchema(documentFormats(arg)),
  };
}

const erased = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

/**
 * OpenAPI links for stateful testing, derived from the paths alone: an operation leads to every
 * operation on its own route and on the routes below it, whose leading path parameters take the
 * values of its own; a creation (201) or a list leads below, to the item its answer names.
 */
function linksFrom<D>(source: Operation<D>, body: ResponseBody, status: number, all: Operation<D>[]): Json {
  const links: Json = {};
  // The indexes (`/`, `/cms/v2`) answer with no item: nothing of theirs names a resource.
  if (!source.route.spec.schema) return links;
  const base = erased(source.path);
  const itemId = (name: string): string | undefined => {
    const properties = source.route.spec.schema?.properties ?? {};
    return 'id' in properties ? 'id' : name in properties ? name : undefined;
  };
  for (const target of all) {
    if (target === source) continue;
    const rest = erased(target.path);
    if (!(rest === base || rest.startsWith(`${base}/`))) continue;
    const values: Json = {};
    source.parameters.forEach((param, i) => {
      values[`path.${target.parameters[i].name}`] = `$request.path.${param.name}`;
    });
    const unfilled = target.parameters.slice(source.parameters.length);
    if (unfilled.length > 1) continue;
    if (unfilled.length === 1) {
      // Only a parameter right below the source's path names the item its answer carries.
      if (!rest.startsWith(`${base}/{}`)) continue;
      const field = itemId(unfilled[0].name);
      const pointer = body === 'items' ? `/0/${field}` : status === 201 ? `/${field}` : undefined;
      if (!field || !pointer) continue;
      values[`path.${unfilled[0].name}`] = `$response.body#${pointer}`;
    }
    links[target.operationId] = { operationId: target.operationId, parameters: values };
  }
  return links;
}
