import { type RestServer } from './rest-server.js';
import { toJsonSchema, type FieldSchema } from './schema.js';

/** `/cms/v2/posts/(?P<id>[\d]+)` -> `/cms/v2/posts/{id}`, with the path parameters' patterns. */
function templatePath(pattern: string): { path: string; parameters: { name: string; pattern: string }[] } {
  const parameters: { name: string; pattern: string }[] = [];
  let path = '';
  let i = 0;
  while (i < pattern.length) {
    if (pattern.startsWith('(?P<', i)) {
      const nameEnd = pattern.indexOf('>', i);
      const name = pattern.slice(i + 4, nameEnd);
      // Find the group's closing parenthesis, counting nested groups and skipping escapes.
      let depth = 1;
      let j = nameEnd + 1;
      for (; j < pattern.length && depth > 0; j++) {
        if (pattern[j] === '\\') j++;
        else if (pattern[j] === '(') depth++;
        else if (pattern[j] === ')') depth--;
      }
      parameters.push({ name, pattern: `^${pattern.slice(nameEnd + 1, j - 1)}$` });
      path += `{${name}}`;
      i = j;
    } else {
      path += pattern[i];
      i++;
    }
  }
  return { path, parameters };
}

/** An OpenAPI 3.1 document built from the same route declarations that serve requests. */
export function openApiDocument<D>(server: RestServer<D>, apiRoot: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of server.routes) {
    const { path, parameters } = templatePath(route.pattern);
    const operations: Record<string, unknown> = (paths[path] ??= {});
    const responseSchema = route.spec.schema ? toJsonSchema(route.spec.schema) : {};
    for (const { spec } of route.endpoints) {
      const args = Object.entries(spec.args ?? {}).filter(([name]) => !parameters.some((p) => p.name === name));
      for (const method of spec.methods) {
        const isWrite = method !== 'GET' && method !== 'DELETE';
        const operation: Record<string, unknown> = {
          operationId: `${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c?: string) => (c ?? '').toUpperCase())}`,
          parameters: [
            ...parameters.map((p) => ({ name: p.name, in: 'path', required: true, schema: { type: 'string', pattern: p.pattern } })),
            ...(isWrite ? [] : args.map(([name, arg]) => queryParameter(name, arg))),
          ],
          responses: {
            default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
            [method === 'POST' && !route.pattern.includes('(') ? '201' : '200']: {
              description: 'Success',
              content: { 'application/json': { schema: responseSchema } },
            },
          },
        };
        if (isWrite && args.length) {
          const properties = Object.fromEntries(args.map(([name, arg]) => [name, toJsonSchema(arg)]));
          const required = args.filter(([, arg]) => arg.required).map(([name]) => name);
          const schema = { type: 'object', properties, ...(required.length ? { required } : {}) };
          operation.requestBody = {
            content: {
              'application/json': { schema },
              'application/x-www-form-urlencoded': { schema },
            },
          };
        }
        operations[method.toLowerCase()] = operation;
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Content management service', version: '2' },
    servers: [{ url: apiRoot }],
    paths,
    components: {
      schemas: {
        Error: {
          type: 'object',
          required: ['code', 'message', 'data'],
          properties: { code: { type: 'string' }, message: { type: 'string' }, data: { type: ['object', 'null'] } },
        },
      },
    },
  };
}

function queryParameter(name: string, arg: FieldSchema): Record<string, unknown> {
  return {
    name,
    in: 'query',
    required: arg.required === true,
    ...(arg.description ? { description: arg.description } : {}),
    schema: toJsonSchema(arg),
  };
}
