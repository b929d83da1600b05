import { type Deps } from '../../deps.js';
import { PostInvalidPage } from '../post-errors.js';
import { pageOf, pageWindow } from '../../rest/pagination.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { RestStream, type RestResponse } from '../../rest/rest-response.js';
import { itemPath } from '../../rest/item-route.js';
import { defineRoutes, READABLE, type RouteSpec } from '../../rest/route.js';
import { canViewHistory } from './history.permissions.js';
import { allEntries, historyPage, inBatches, liveRevisions, type HistoryItem, type HistorySubject } from './history.queries.js';
import { historyArgs, historySchema } from './history.schema.js';
import { compactEntry, prepareHistoryEntry, type HistoryJson } from './history.serializer.js';

const NDJSON = 'application/x-ndjson';
// Revision links are checked once per this many streamed entries: one indexed query, bounded memory.
const STREAM_BATCH = 500;

/**
 * `/<rest_base>/<id>/history`: the item's change log, oldest first. A page of JSON by default;
 * with `Accept: application/x-ndjson`, every event, one object a line, each read and let go in turn.
 */
export function historyRoutes<Item extends HistoryItem>(subject: HistorySubject<Item>): RouteSpec<Deps>[] {
  const { route } = subject;
  return defineRoutes<Deps>(route.namespace, [
    {
      path: `/${route.base}/(?P<id>${route.idPattern})/history`,
      schema: historySchema,
      endpoints: [
        {
          methods: READABLE,
          args: { id: route.idArg('Unique identifier for the item.'), ...historyArgs },
          permission: canViewHistory(subject),
          response: { body: 'items', ndjson: true },
          handler: (req, deps) => (wantsStream(req) ? streamHistory(subject, req, deps) : listHistory(subject, req, deps)),
        },
      ],
    },
  ]);
}

function wantsStream(req: RestRequest): boolean {
  return (req.headers.accept ?? '').split(',').some((type) => type.split(';')[0].trim().toLowerCase() === NDJSON);
}

async function listHistory<Item extends HistoryItem>(subject: HistorySubject<Item>, req: RestRequest, deps: Deps): Promise<RestResponse> {
  const doc = await subject.find(deps, req.params.id);
  const window = pageWindow(req.params);
  const { entries, total } = await historyPage(deps, doc, window, subject.wireNames);
  const live = req.wants('_links') ? await liveRevisions(deps, doc._id, entries) : new Set<number>();
  const item = { route: itemPath(subject.route, doc), wireNames: subject.wireNames };
  return pageOf(entries.map((entry) => prepareHistoryEntry(entry, item, live, req)), total, window, PostInvalidPage);
}

async function streamHistory<Item extends HistoryItem>(subject: HistorySubject<Item>, req: RestRequest, deps: Deps): Promise<RestStream> {
  const doc = await subject.find(deps, req.params.id);
  const item = { route: itemPath(subject.route, doc), wireNames: subject.wireNames };
  async function* entries(): AsyncGenerator<HistoryJson> {
    for await (const batch of inBatches(allEntries(deps, doc, subject.wireNames), STREAM_BATCH)) {
      const live = await liveRevisions(deps, doc._id, batch);
      for (const entry of batch) yield compactEntry(prepareHistoryEntry(entry, item, live, req));
    }
  }
  return new RestStream(entries());
}
