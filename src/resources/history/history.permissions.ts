import { type Deps } from '../../deps.js';
import { defineAuthError } from '../../rest/errors.js';
import { type Permission } from '../../rest/route.js';
import { type HistoryItem, type HistorySubject } from './history.queries.js';

export const CannotReadHistory = defineAuthError('rest_cannot_read', 'Sorry, you are not allowed to view the history of this post.');

/**
 * As WordPress's revisions controller: the item must exist (404 first, even for anonymous
 * callers), and its history is for those who may edit it.
 */
export const canViewHistory =
  <Item extends HistoryItem>(subject: HistorySubject<Item>): Permission<Deps> =>
  async (req, deps) => {
    const item = await subject.find(deps, req.params.id);
    if (!subject.mayRead(req, item)) throw new CannotReadHistory(req);
    return true;
  };
