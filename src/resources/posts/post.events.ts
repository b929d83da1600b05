import { eventsOfTypes, type TypedEvent } from '../../store/log/change-log.js';
import { type PostFields, type RevisionedField } from './post.model.js';

/** The change log's event types for post-like items (DESIGN.md, "The change log"). */
export const POST_EVENT_TYPES = ['created', 'updated', 'autosaved', 'trashed', 'untrashed', 'restored', 'revision_deleted', 'deleted'] as const;
export type PostEventType = (typeof POST_EVENT_TYPES)[number];

export interface PostCreated {
  fields: PostFields;
}

/** `updated`, `trashed`, `untrashed` and `restored`: the fields that changed, and the revision it made, if any. */
export interface PostChanged {
  changes: Partial<PostFields>;
  revisionId?: number;
  /** `restored` only: the revision whose content was made current. */
  fromRevision?: number;
  /** `restored` only: the position of the log whose state was made current (a restore as of a point). */
  fromPosition?: number;
  /** `updated` only: the scheduled change this update applied (see `ScheduledApplication`). */
  scheduled?: ScheduledApplication;
  /** What updates that applied a scheduled change stored before `scheduled`: the change alone. */
  scheduledChange?: number;
  /** Who held the item's edit lock when another user wrote this change (locks are advisory: the write went through). */
  lockedBy?: number;
}

/**
 * The scheduled change an update applied. The scheduler applies it, with no request, as an update
 * by whoever scheduled it (last edited it): the event's actor, `scheduledBy` too.
 */
export interface ScheduledApplication {
  change: number;
  scheduledBy: number;
  /**
   * The fields it carries that the item's events after the change was scheduled (or its fields
   * last edited) had changed, named as those events' history entries name them. Absent when the
   * change did not record the item's version then (scheduled before it was kept).
   */
  changedMeanwhile?: string[];
}

/**
 * An autosave. A draft's own author saves into the draft itself (`inPlace`, no revision);
 * anyone else writes their one autosave of the item, which holds every revisioned field: those
 * not sent keep the autosave's earlier value, or are empty. `sent` names the fields this save
 * carried, so that readers of the log can tell an emptied field from one the save left alone.
 */
export type PostAutosaved =
  | { inPlace: true; changes: Partial<PostFields> }
  | {
      inPlace: false;
      autosaveId: number;
      isNew: boolean;
      fields: Record<RevisionedField, string>;
      /** The fields the request carried (absent from autosaves logged before they were recorded: read as all). */
      sent?: RevisionedField[];
      /** When it was saved, in the site's timezone and in GMT. */
      date: string;
      dateGmt: string;
    };

export interface RevisionDeleted {
  revisionId: number;
}

/** A force delete: its content is erased from the log, and nothing else is said. */
export type PostDeleted = Record<string, never>;

/** A post or page's events, as its commands decide them and the log stores them (the type strings of `POST_EVENT_TYPES`). */
export type PostEvent =
  | { type: 'created'; data: PostCreated }
  | PostChangedEvent
  | PostAutosavedEvent
  | RevisionDeletedEvent
  | { type: 'deleted'; data: PostDeleted };

export type PostChangedEvent = { type: 'updated' | 'trashed' | 'untrashed' | 'restored'; data: PostChanged };
export type PostAutosavedEvent = { type: 'autosaved'; data: PostAutosaved };
export type RevisionDeletedEvent = { type: 'revision_deleted'; data: RevisionDeleted };

/** A post or page's event as read from the log. */
export type StoredPostEvent = TypedEvent<PostEvent>;

/** Whether an event read from the log is one of a post or page's: the one narrowing of its data. */
export const isPostEvent = eventsOfTypes<PostEvent>(POST_EVENT_TYPES);
