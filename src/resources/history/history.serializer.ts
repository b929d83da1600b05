import { formatRestDate } from '../../lib/site-dates.js';
import { compactLinks, type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { findTaxonomy } from '../../registry/taxonomies.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { type StoredEvent } from '../../store/change-log.js';
import { type PostAutosaved, type PostChanged, type PostCreated } from '../posts/post.events.js';

/** One event of an item's change log, the same for `/history` and the timeline export. */
export interface TimelineEntry {
  seq: number;
  type: string;
  date_gmt: string;
  author: number;
  fields: string[];
  revision: number | null;
  redacted: string[];
  /** The event's place on the one clock of the whole log. */
  position: number;
}

/** The revision or autosave an event wrote, for its link. */
export interface WrittenRevision {
  id: number;
  kind: 'revision' | 'autosave';
}

// The stored fields are named for the code; the entries name them as the REST API does.
const WIRE_NAMES: Readonly<Record<string, string>> = {
  dateGmt: 'date_gmt',
  modifiedGmt: 'modified_gmt',
  trashedFrom: 'trashed_from',
  menuOrder: 'menu_order',
  attrTitle: 'attr_title',
  objectId: 'object_id',
  menu: 'menus',
};
// Every change stamps these; listing them on each entry would say nothing.
const STAMPS = new Set(['modified', 'modifiedGmt']);

/** The wire names of stored fields; `terms` becomes the REST bases of the taxonomies it holds (`categories`, `tags`). */
function wireNames(record: Record<string, unknown>, skip: ReadonlySet<string> = new Set()): string[] {
  const names: string[] = [];
  for (const [field, value] of Object.entries(record)) {
    if (skip.has(field)) continue;
    if (field === 'terms' && value && typeof value === 'object') {
      names.push(...Object.keys(value).map((taxonomy) => findTaxonomy(taxonomy)?.rest_base ?? taxonomy));
    } else {
      names.push(WIRE_NAMES[field] ?? field);
    }
  }
  return [...new Set(names)];
}

function changedFields(event: StoredEvent): string[] {
  switch (event.type) {
    case 'created':
      return wireNames((event.data as unknown as PostCreated).fields as unknown as Record<string, unknown>);
    case 'updated':
    case 'trashed':
    case 'untrashed':
    case 'restored':
      return wireNames((event.data as unknown as PostChanged).changes as Record<string, unknown>, STAMPS);
    case 'autosaved': {
      const data = event.data as unknown as PostAutosaved;
      return data.inPlace ? wireNames(data.changes as Record<string, unknown>, STAMPS) : wireNames(data.fields);
    }
    default:
      return [];
  }
}

export function writtenRevision(event: StoredEvent): WrittenRevision | null {
  if (event.type === 'autosaved') {
    const data = event.data as unknown as PostAutosaved;
    return data.inPlace ? null : { id: data.autosaveId, kind: 'autosave' };
  }
  const { revisionId } = event.data as unknown as PostChanged;
  if (event.type === 'revision_deleted' || typeof revisionId !== 'number') return null;
  return { id: revisionId, kind: 'revision' };
}

/** The entry of one event: who, when, what kind, which fields; never the content itself. */
export function timelineEntry(event: StoredEvent): TimelineEntry {
  return {
    seq: event.seq,
    type: event.type,
    date_gmt: formatRestDate(event.at)!,
    author: event.actor,
    fields: changedFields(event),
    revision: writtenRevision(event)?.id ?? null,
    redacted: event.redacted ? wireNames(Object.fromEntries(event.redacted.map((field) => [field, true]))) : [],
    // Every event holds one once start-up has upgraded the log (`upgradePositions`).
    position: event.position!,
  };
}

export type HistoryJson = TimelineEntry & { _links?: Links };

/**
 * An entry with its links: `up` to the item and, while it still exists, the revision or autosave
 * the event wrote (as WordPress links a revision to its parent).
 */
export function prepareHistoryEntry(
  event: StoredEvent,
  postType: Pick<PostTypeDef, 'rest_namespace' | 'rest_base'>,
  liveRevisions: ReadonlySet<number>,
  req: RestRequest,
): HistoryJson {
  const entry: HistoryJson = timelineEntry(event);
  if (!req.wants('_links')) return entry;
  const item = `/${postType.rest_namespace}/${postType.rest_base}/${event.stream}`;
  const links: Links = { up: [{ href: req.url(item), embeddable: true }] };
  const revision = writtenRevision(event);
  if (revision && liveRevisions.has(revision.id)) {
    links['https://api.w.org/revision'] = [{ href: req.url(`${item}/${revision.kind === 'autosave' ? 'autosaves' : 'revisions'}/${revision.id}`) }];
  }
  entry._links = links;
  return entry;
}

/** A streamed entry: the layer compacts links only in JSON responses, so a stream does it here. */
export function compactEntry(entry: HistoryJson): HistoryJson {
  return entry._links ? { ...entry, _links: compactLinks(entry._links) } : entry;
}
