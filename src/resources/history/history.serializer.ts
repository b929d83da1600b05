import { formatRestDate } from '../../lib/site-dates.js';
import { compactLinks, type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type StoredEvent } from '../../store/log/change-log.js';

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
  /** Present on a change written while another user held the item's edit lock: that user (locks are advisory). */
  locked_by?: number;
  /** Present on an update that applied a scheduled change (`scheduledChangeOf`). */
  scheduled_change?: ScheduledChangeJson;
}

/**
 * The scheduled change an update applied, as every reader of the log shows it (`/history`, the
 * change feed, webhooks): the change, who scheduled it, and which of its fields the item's
 * changes had changed since (null when the change did not record what it was scheduled on).
 */
export interface ScheduledChangeJson {
  id: number;
  scheduled_by: number;
  changed_meanwhile: string[] | null;
}

/** The revision or autosave an event wrote, for its link. */
export interface WrittenRevision {
  id: number;
  kind: 'revision' | 'autosave';
}

/**
 * What the change log's events hold, as every history type records them: a creation its
 * `fields`, a change the `changes` it made and the revision that records it, an autosave the
 * fields it kept and those it was sent, or, saved in place, the changes it made.
 */
interface EventData {
  fields?: Record<string, unknown> | readonly string[];
  changes?: Record<string, unknown>;
  revisionId?: number;
  autosaveId?: number;
  inPlace?: boolean;
  /** An autosave's: the fields its request carried, of those it keeps (`fields`). */
  sent?: readonly string[];
  lockedBy?: number;
  scheduled?: { change: number; scheduledBy: number; changedMeanwhile?: string[] };
  /** The form of `scheduled` stored before it: the change alone. */
  scheduledChange?: number;
}

/**
 * How a type names one of its stored fields on the wire where the shared rule (camelCase to
 * snake_case) does not say: the names, or undefined to take the rule's. Each history type brings
 * its own (posts: `terms` as its taxonomies' REST bases; menu items: `menu` as `menus`).
 */
export type WireNames = (field: string, value: unknown) => readonly string[] | undefined;

// Every change stamps these; listing them on each entry would say nothing.
const STAMPS = new Set(['modified', 'modifiedGmt']);

const snakeCase = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The wire names of stored fields: the type's own, or snake_case. */
function wireNamesOf(record: Record<string, unknown>, typeNames: WireNames | undefined, skip: ReadonlySet<string> = new Set()): string[] {
  const names: string[] = [];
  for (const [field, value] of Object.entries(record)) {
    if (skip.has(field)) continue;
    names.push(...(typeNames?.(field, value) ?? [snakeCase(field)]));
  }
  return [...new Set(names)];
}

const asRecord = (fields: EventData['fields']): Record<string, unknown> =>
  Array.isArray(fields) ? Object.fromEntries(fields.map((field: string) => [field, true])) : ((fields ?? {}) as Record<string, unknown>);

/** The fields an event set, named on the wire (the entry's `fields`). */
export function changedFields(event: StoredEvent, typeNames: WireNames | undefined): string[] {
  const data = event.data as EventData;
  switch (event.type) {
    case 'created':
      return wireNamesOf(asRecord(data.fields), typeNames);
    case 'updated':
    case 'trashed':
    case 'untrashed':
    case 'restored':
      return wireNamesOf(data.changes ?? {}, typeNames, STAMPS);
    case 'autosaved':
      // An autosave keeps every revisioned field, but sets only those its request carried (the
      // others it leaves empty, or as its earlier save had them); one logged before `sent` was
      // recorded names them all.
      if (data.inPlace) return wireNamesOf(data.changes ?? {}, typeNames, STAMPS);
      return wireNamesOf(asRecord(data.sent ?? data.fields), typeNames);
    default:
      return [];
  }
}

export function writtenRevision(event: StoredEvent): WrittenRevision | null {
  const data = event.data as EventData;
  if (event.type === 'autosaved') return data.inPlace || data.autosaveId === undefined ? null : { id: data.autosaveId, kind: 'autosave' };
  const { revisionId } = data;
  if (event.type === 'revision_deleted' || typeof revisionId !== 'number') return null;
  return { id: revisionId, kind: 'revision' };
}

/** The scheduled change an event applied, or undefined; an update stored before `scheduled` names only the change, applied as its actor. */
export function scheduledChangeOf(event: StoredEvent): ScheduledChangeJson | undefined {
  const { scheduled, scheduledChange } = event.data as EventData;
  if (scheduled) return { id: scheduled.change, scheduled_by: scheduled.scheduledBy, changed_meanwhile: scheduled.changedMeanwhile ?? null };
  if (typeof scheduledChange === 'number') return { id: scheduledChange, scheduled_by: event.actor, changed_meanwhile: null };
  return undefined;
}

/** The entry of one event: who, when, what kind, which fields (named as its type names them); never the content itself. */
export function timelineEntry(event: StoredEvent, typeNames?: WireNames): TimelineEntry {
  const { lockedBy } = event.data as EventData;
  const scheduled = scheduledChangeOf(event);
  return {
    seq: event.seq,
    type: event.type,
    date_gmt: formatRestDate(event.at)!,
    author: event.actor,
    fields: changedFields(event, typeNames),
    revision: writtenRevision(event)?.id ?? null,
    redacted: event.redacted ? wireNamesOf(asRecord(event.redacted), typeNames) : [],
    // Every event holds one once start-up has upgraded the log (`upgradePositions`).
    position: event.position!,
    ...(typeof lockedBy === 'number' ? { locked_by: lockedBy } : {}),
    ...(scheduled ? { scheduled_change: scheduled } : {}),
  };
}

export type HistoryJson = TimelineEntry & { _links?: Links };

/** The item whose entries are prepared: its route (`/cms/v2/posts/5`) and its type's wire names. */
export interface ItemOfEntry {
  readonly route: string;
  readonly wireNames?: WireNames;
}

/**
 * An entry with its links: `up` to the item and, while it still exists, the revision or autosave
 * the event wrote (as WordPress links a revision to its parent).
 */
export function prepareHistoryEntry(entry: TimelineEntry, item: ItemOfEntry, liveRevisions: ReadonlySet<number>, req: RestRequest): HistoryJson {
  if (!req.wants('_links')) return entry;
  const links: Links = { up: [{ href: req.url(item.route), embeddable: true }] };
  if (entry.revision !== null && liveRevisions.has(entry.revision)) {
    // An autosave's event writes an autosave (`writtenRevision`); every other, a revision.
    const kind = entry.type === 'autosaved' ? 'autosaves' : 'revisions';
    links['https://api.w.org/revision'] = [{ href: req.url(`${item.route}/${kind}/${entry.revision}`) }];
  }
  return { ...entry, _links: links };
}

/** A streamed entry: the layer compacts links only in JSON responses, so a stream does it here. */
export function compactEntry(entry: HistoryJson): HistoryJson {
  return entry._links ? { ...entry, _links: compactLinks(entry._links) } : entry;
}
