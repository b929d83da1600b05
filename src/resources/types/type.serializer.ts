import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { taxonomiesOf, type PostTypeDef } from '../../registry/post-types.js';
import { findTaxonomy } from '../../registry/taxonomies.js';

/** The capability map WordPress shows (`get_post_type_capabilities`): meta capabilities, then primitive ones. */
function capabilitiesOf({ caps, capability_type: singular }: PostTypeDef): Record<string, string> {
  return {
    edit_post: `edit_${singular}`,
    read_post: `read_${singular}`,
    delete_post: `delete_${singular}`,
    edit_posts: caps.edit_posts,
    edit_others_posts: caps.edit_others_posts,
    delete_posts: caps.delete_posts,
    publish_posts: caps.publish_posts,
    read_private_posts: caps.read_private_posts,
    read: caps.read,
    delete_private_posts: caps.delete_private_posts,
    delete_published_posts: caps.delete_published_posts,
    delete_others_posts: caps.delete_others_posts,
    edit_private_posts: caps.edit_private_posts,
    edit_published_posts: caps.edit_published_posts,
    create_posts: caps.create_posts,
  };
}

export function prepareType(type: PostTypeDef, req: RestRequest): Record<string, unknown> {
  const data: Record<string, unknown> = {
    capabilities: capabilitiesOf(type),
    description: type.description,
    hierarchical: type.hierarchical,
    has_archive: type.has_archive,
    visibility: { show_in_nav_menus: type.visibility.show_in_nav_menus, show_ui: type.visibility.show_ui },
    viewable: type.viewable,
    labels: type.labels,
    name: type.name,
    slug: type.slug,
    icon: type.icon,
    supports: type.supports,
    taxonomies: taxonomiesOf(type.slug).filter((slug) => findTaxonomy(slug)?.show_in_rest),
    rest_base: type.rest_base,
    rest_namespace: type.rest_namespace,
  };
  if (req.wants('_links')) {
    const links: Links = {
      collection: [{ href: req.url('/cms/v2/types') }],
      'https://api.w.org/items': [{ href: req.url(`/${type.rest_namespace}/${type.rest_base}`) }],
    };
    data._links = links;
  }
  return data;
}
