/** A post status as WordPress registers it (`register_post_status`). */
export interface PostStatusDef {
  readonly slug: string;
  readonly name: string;
  readonly public: boolean;
  readonly private: boolean;
  readonly protected: boolean;
  readonly queryable: boolean;
  readonly show_in_list: boolean;
  readonly date_floating: boolean;
  /** `inherit` and `auto-draft` are internal: never shown by `/statuses`. */
  readonly internal: boolean;
}

const status = (slug: string, name: string, flags: Partial<PostStatusDef>): PostStatusDef =>
  Object.freeze({
    slug,
    name,
    public: false,
    private: false,
    protected: false,
    queryable: false,
    show_in_list: true,
    date_floating: false,
    internal: false,
    ...flags,
  });

/** In WordPress's order: the five settable statuses, then trash and the internal ones. */
export const POST_STATUSES: readonly PostStatusDef[] = Object.freeze([
  status('publish', 'Published', { public: true, queryable: true }),
  status('future', 'Scheduled', { protected: true }),
  status('draft', 'Draft', { protected: true, date_floating: true }),
  status('pending', 'Pending', { protected: true, date_floating: true }),
  status('private', 'Private', { private: true }),
  // Internal statuses stay out of the edit listing unless registered otherwise (`show_in_admin_all_list`).
  status('trash', 'Trash', { internal: true, show_in_list: false }),
  status('auto-draft', 'Auto Draft', { internal: true, show_in_list: false, date_floating: true }),
  status('inherit', 'Inherit', { internal: true, show_in_list: false }),
]);

/** The statuses a client may set on a post: publish, future, draft, pending, private. */
export const SETTABLE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const;

export function findPostStatus(slug: string): PostStatusDef | undefined {
  return POST_STATUSES.find((def) => def.slug === slug);
}
