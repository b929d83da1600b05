import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type ApiResponse } from './test-app.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, any>;

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks real responses against an OpenAPI 3.1 document as a schema-driven client reads it: the
 * operation is found by method and path template, the status must be documented (exactly or by
 * range), the content type listed, the required headers present, and the body valid against the
 * response's schema (JSON Schema 2020-12, standard formats).
 */
export class OpenApiConformance {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; regex: RegExp; literal: number }[];

  constructor(private readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    addFormats(this.ajv);
    this.ajv.addSchema(document, 'openapi.json');
    this.templates = Object.keys(document.paths).map((template) => ({
      template,
      regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      literal: template.replace(/\{[^}]+\}/g, '').length,
    }));
  }

  /** Every way `response` to `method route` departs from the document; empty when it conforms. */
  problems(method: string, route: string, response: ApiResponse): string[] {
    const path = new URL(route, 'http://x').pathname.replace(/\/+$/, '') || '/';
    // The most literal template wins, as `/users/me` over `/users/{id}`.
    const found = this.templates.filter((t) => t.regex.test(path)).sort((a, b) => b.literal - a.literal)[0];
    const label = `${method} ${route} -> ${response.status}`;
    if (!found) return [`${label}: no path of the document matches ${path}`];
    const operation = this.document.paths[found.template][method.toLowerCase()];
    if (!operation) return [`${label}: ${found.template} has no ${method}`];
    const status = String(response.status);
    const key = [status, `${status[0]}XX`, 'default'].find((candidate) => operation.responses[candidate]);
    if (!key) return [`${label}: status not documented (${Object.keys(operation.responses).join(', ')})`];
    const documented = operation.responses[key];
    const problems: string[] = [];
    for (const [name, header] of Object.entries<Json>(documented.headers ?? {})) {
      if (header.required && response.headers.get(name) === null) problems.push(`${label}: header ${name} missing`);
    }
    if (!documented.content) return problems;
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0].trim();
    if (!documented.content[mediaType]) return [...problems, `${label}: content type ${mediaType} not documented`];
    const pointer = ['paths', found.template, method.toLowerCase(), 'responses', key, 'content', mediaType, 'schema'].map(escapePointer).join('/');
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json#/${pointer}` });
      this.validators.set(pointer, validate);
    }
    if (!validate(response.body)) {
      for (const error of validate.errors ?? []) problems.push(`${label}: body${error.instancePath} ${error.message} (${error.schemaPath})`);
    }
    return problems;
  }
}
