import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { findPostType } from '../../registry/post-types.js';
import { type PostStatusDef } from '../../registry/post-statuses.js';

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
