/** Where the admin page and its sign-in are served. */
export const ADMIN_PREFIX = '/cms-admin';
