import { filterByContext } from '../../rest/item-schema.js';
import { compactLinks, type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { findPostType } from '../../registry/post-types.js';
import { type PostStatusDef } from '../../registry/post-statuses.js';
import { statusSchema } from './status.schema.js';

export function prepareStatus(status: PostStatusDef, req: RestRequest): Record<string, unknown> {
  const data: Record<string, unknown> = {
    name: status.name,
    private: status.private,
    protected: status.protected,
    public: status.public,
    queryable: status.queryable,
    show_in_list: status.show_in_list,
    slug: status.slug,
    date_floating: status.date_floating,
  };
  if (req.wants('_links')) {
    const post = findPostType('post')!;
    const posts = req.url(`/${post.rest_namespace}/${post.rest_base}`);
    const links: Links = { archives: [{ href: status.slug === 'publish' ? posts : `${posts}?status=${status.slug}` }] };
    data._links = links;
  }
  return data;
}

/**
 * An entry of the list, which is an object keyed by slug: the server sees one object there, so
 * each entry is filtered by context and has its links compacted here (`prepare_response_for_collection`).
 */
export function prepareStatusForCollection(status: PostStatusDef, req: RestRequest): Record<string, unknown> {
  const data = filterByContext(statusSchema, prepareStatus(status, req), req.context) as Record<string, unknown>;
  if (data._links) data._links = compactLinks(data._links as Links);
  return data;
}
