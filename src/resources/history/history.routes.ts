import { type Deps } from '../../deps.js';
import { PostInvalidPage } from '../posts/index.js';
import { pageOf, pageWindow } from '../../rest/pagination.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { RestStream, type RestResponse } from '../../rest/rest-response.js';
import { defineRoutes, READABLE, type RouteSpec } from '../../rest/route.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { changeLog, type StoredEvent } from '../../store/change-log.js';
import { canViewHistory } from './history.permissions.js';
import { findHistoryItem, historyPage, inBatches, liveRevisions } from './history.queries.js';
import { historyArgs, historySchema } from './history.schema.js';
import { compactEntry, prepareHistoryEntry, writtenRevision, type HistoryJson } from './history.serializer.js';


const NDJSON = 'application/x-ndjson';
// Revision links are checked once per this many streamed events: one indexed query, bounded memory.
const STREAM_BATCH = 500;

/**
 * `/<rest_base>/<id>/history`: the item's change log, oldest first. A page of JSON by default;
 * with `Accept: application/x-ndjson`, every event, one object a line, read from a cursor.
 */
export function historyRoutes(postType: PostTypeDef): RouteSpec<Deps>[] {
  return defineRoutes<Deps>(postType.rest_namespace, [
    {
      path: `/${postType.rest_base}/(?P<id>[\\d]+)/history`,
      schema: historySchema,
      endpoints: [
        {
          methods: READABLE,
          args: historyArgs,
          permission: canViewHistory(postType),
          response: { body: 'items', ndjson: true },
          handler: (req, deps) => (wantsStream(req) ? streamHistory(postType, req, deps) : listHistory(postType, req, deps)),
        },
      ],
    },
  ]);
}

function wantsStream(req: RestRequest): boolean {
  return (req.headers.accept ?? '').split(',').some((type) => type.split(';')[0].trim().toLowerCase() === NDJSON);
}

async function listHistory(postType: PostTypeDef, req: RestRequest, deps: Deps): Promise<RestResponse> {
  const doc = await findHistoryItem(deps, postType, Number(req.params.id));
  const window = pageWindow(req.params);
  const { events, total } = await historyPage(deps, doc._id, window);
  const live = req.wants('_links') ? await liveRevisions(deps, doc._id, revisionIds(events)) : new Set<number>();
  const entries = events.map((event) => prepareHistoryEntry(event, postType, live, req));
  return pageOf(entries, total, window, PostInvalidPage);
}

async function streamHistory(postType: PostTypeDef, req: RestRequest, deps: Deps): Promise<RestStream> {
  const doc = await findHistoryItem(deps, postType, Number(req.params.id));
  const events = changeLog(deps.store.db).scan({ streams: [doc._id] });
  async function* entries(): AsyncGenerator<HistoryJson> {
    for await (const batch of inBatches(events, STREAM_BATCH)) {
      const live = await liveRevisions(deps, doc._id, revisionIds(batch));
      for (const event of batch) yield compactEntry(prepareHistoryEntry(event, postType, live, req));
    }
  }
  return new RestStream(entries());
}

const revisionIds = (events: StoredEvent[]): number[] =>
  events.map((event) => writtenRevision(event)?.id).filter((id): id is number => id !== undefined);
