import { formatRestDate } from '../../lib/site-dates.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type LockDoc } from './lock.model.js';

/** A lock's fields, as an item's `lock` field shows them. */
export function lockFields(lock: LockDoc): Record<string, unknown> {
  return { user: lock.user, since: formatRestDate(lock.since), refreshed: formatRestDate(lock.refreshedAt), lapses: formatRestDate(lock.lapsesAt) };
}

/** A lock as its route answers it: its fields, and links to itself, the locked item and its holder. */
export function prepareLock(lock: LockDoc, req: RestRequest, itemPath: string): Record<string, unknown> {
  const links: Links = {
    self: [{ href: req.url(`${itemPath}/lock`) }],
    up: [{ href: req.url(itemPath), embeddable: true }],
    author: [{ href: req.url(`/cms/v2/users/${lock.user}`), embeddable: true }],
  };
  return { ...lockFields(lock), _links: links };
}
