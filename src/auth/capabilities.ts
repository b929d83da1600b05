/**
 * WordPress's five roles and `map_meta_cap`: a meta capability on an object (`edit_post` on a
 * post, `edit_user` on a user, `delete_term` on a term) resolves to primitive capabilities the
 * caller's roles must all grant. Every permission check goes through `can()`.
 */

const SUBSCRIBER = ['read', 'level_0'];
const CONTRIBUTOR = [...SUBSCRIBER, 'edit_posts', 'delete_posts', 'level_1'];
const AUTHOR = [...CONTRIBUTOR, 'upload_files', 'edit_published_posts', 'publish_posts', 'delete_published_posts', 'level_2'];
const EDITOR = [
  ...AUTHOR,
  'moderate_comments', 'manage_categories', 'manage_links', 'unfiltered_html', 'edit_others_posts',
  'edit_pages', 'edit_others_pages', 'edit_published_pages', 'publish_pages', 'delete_pages',
  'delete_others_pages', 'delete_published_pages', 'delete_others_posts', 'delete_private_posts',
  'edit_private_posts', 'read_private_posts', 'delete_private_pages', 'edit_private_pages',
  'read_private_pages', 'level_3', 'level_4', 'level_5', 'level_6', 'level_7',
];
const ADMINISTRATOR = [
  ...EDITOR,
  'switch_themes', 'edit_themes', 'activate_plugins', 'edit_plugins', 'edit_users', 'edit_files',
  'manage_options', 'import', 'delete_users', 'create_users', 'unfiltered_upload', 'edit_dashboard',
  'update_plugins', 'delete_plugins', 'install_plugins', 'update_themes', 'install_themes',
  'update_core', 'list_users', 'remove_users', 'promote_users', 'edit_theme_options', 'delete_themes',
  'export', 'level_8', 'level_9', 'level_10',
];

export const ROLES = {
  administrator: { name: 'Administrator', capabilities: ADMINISTRATOR },
  editor: { name: 'Editor', capabilities: EDITOR },
  author: { name: 'Author', capabilities: AUTHOR },
  contributor: { name: 'Contributor', capabilities: CONTRIBUTOR },
  subscriber: { name: 'Subscriber', capabilities: SUBSCRIBER },
} as const;

export type RoleName = keyof typeof ROLES;
export const ROLE_NAMES = Object.keys(ROLES) as RoleName[];
export const DEFAULT_ROLE: RoleName = 'subscriber';

export function isRole(name: string): name is RoleName {
  return Object.hasOwn(ROLES, name);
}

/** Who asks: id 0 is anonymous and has no capability. */
export interface Principal {
  readonly id: number;
  readonly roles?: readonly string[];
}

/** A post type's capability names (`edit_posts` for posts, `edit_pages` for pages, ...). */
export interface PostTypeCaps {
  edit_posts: string;
  edit_others_posts: string;
  edit_published_posts: string;
  edit_private_posts: string;
  publish_posts: string;
  read_private_posts: string;
  delete_posts: string;
  delete_others_posts: string;
  delete_published_posts: string;
  delete_private_posts: string;
  create_posts: string;
  read: string;
}

/** A taxonomy's capability names. */
export interface TaxonomyCaps {
  manage_terms: string;
  edit_terms: string;
  delete_terms: string;
  assign_terms: string;
}

export interface PostLike {
  author: number;
  status: string;
  /** The status before trashing, for posts in the trash. */
  trashedFrom?: string;
  caps: PostTypeCaps;
  /** Public statuses (read by anyone); from the status registry. */
  isPublicStatus: boolean;
}

export interface TermLike {
  id: number;
  caps: TaxonomyCaps;
  /** The default category cannot be deleted. */
  isDefault?: boolean;
}

export type CapabilityTarget =
  | { user: { id: number } }
  | { post: PostLike }
  | { term: TermLike }
  | { taxonomy: TaxonomyCaps };

/** The primitive capabilities the roles of `principal` grant. */
export function capabilitiesOf(principal: Principal): Set<string> {
  const caps = new Set<string>();
  for (const role of principal.roles ?? []) {
    if (isRole(role)) ROLES[role].capabilities.forEach((cap) => caps.add(cap));
  }
  return caps;
}

const NOT_ALLOWED = 'do_not_allow';

/** `map_meta_cap`: the primitive capabilities that `cap` on `target` needs. */
export function mapMetaCap(principal: Principal, cap: string, target?: CapabilityTarget): string[] {
  if (target && 'user' in target) {
    const self = target.user.id === principal.id;
    switch (cap) {
      case 'edit_user':
        return self ? [] : ['edit_users'];
      case 'delete_user':
        return ['delete_users'];
      case 'remove_user':
        return ['remove_users'];
      case 'promote_user':
        return ['promote_users'];
    }
  }
  if (target && 'post' in target) return mapPostCap(principal, cap, target.post);
  if (target && 'term' in target) {
    const { caps, isDefault } = target.term;
    switch (cap) {
      case 'edit_term':
        return [caps.edit_terms];
      case 'delete_term':
        return isDefault ? [NOT_ALLOWED] : [caps.delete_terms];
      case 'assign_term':
        return [caps.assign_terms];
    }
  }
  if (target && 'taxonomy' in target) {
    const caps = target.taxonomy;
    if (cap in caps) return [caps[cap as keyof TaxonomyCaps]];
  }
  return [cap];
}

function mapPostCap(principal: Principal, cap: string, post: PostLike): string[] {
  const { caps } = post;
  const own = post.author === principal.id && principal.id > 0;
  const status = post.status === 'trash' ? (post.trashedFrom ?? 'draft') : post.status;
  switch (cap) {
    case 'edit_post': {
      if (own) return [status === 'publish' || status === 'future' ? caps.edit_published_posts : caps.edit_posts];
      const needed = [caps.edit_others_posts];
      if (status === 'publish' || status === 'future') needed.push(caps.edit_published_posts);
      if (status === 'private') needed.push(caps.edit_private_posts);
      return needed;
    }
    case 'delete_post': {
      if (own) return [status === 'publish' || status === 'future' ? caps.delete_published_posts : caps.delete_posts];
      const needed = [caps.delete_others_posts];
      if (status === 'publish' || status === 'future') needed.push(caps.delete_published_posts);
      if (status === 'private') needed.push(caps.delete_private_posts);
      return needed;
    }
    case 'read_post': {
      if (post.isPublicStatus) return [caps.read];
      if (status === 'private') return own ? [caps.read] : [caps.read_private_posts];
      return own ? [caps.read] : mapPostCap(principal, 'edit_post', post);
    }
    case 'publish_post':
      return [caps.publish_posts];
  }
  return [cap];
}

/** Whether `principal` has `cap`, a primitive capability or a meta capability on `target`. */
export function can(principal: Principal, cap: string, target?: CapabilityTarget): boolean {
  if (principal.id <= 0) return false;
  const granted = capabilitiesOf(principal);
  return mapMetaCap(principal, cap, target).every((needed) => needed !== NOT_ALLOWED && granted.has(needed));
}

/** The capabilities object WordPress shows for a user in `edit` context: each cap, and each role, true. */
export function capabilityMap(principal: Principal): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const cap of capabilitiesOf(principal)) out[cap] = true;
  for (const role of principal.roles ?? []) out[role] = true;
  return out;
}
