import { parseFieldList } from './fields.js';
import { parseEmbed } from './links.js';

/**
 * Refuses a request whose global parameters are larger than the service reads (`_fields` in
 * the query or the body, `_embed` in the query), with 400 `rest_invalid_param` naming the
 * parameter: called as soon as the body is parsed, so an oversized list costs nothing more.
 */
export function refuseOversizedGlobals(query: unknown, body: unknown): void {
  for (const params of [query, body]) {
    if (typeof params !== 'object' || params === null || Array.isArray(params)) continue;
    if (Object.hasOwn(params, '_fields')) parseFieldList((params as Record<string, unknown>)._fields);
  }
  if (typeof query === 'object' && query !== null && Object.hasOwn(query, '_embed')) parseEmbed((query as Record<string, unknown>)._embed);
}
