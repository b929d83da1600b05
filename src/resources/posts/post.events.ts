import { type StoredEvent } from '../../store/change-log.js';
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
  /** `updated` only: the scheduled change this update applied (its author is the event's actor). */
  scheduledChange?: number;
  /** Who held the item's edit lock when another user wrote this change (locks are advisory: the write went through). */
  lockedBy?: number;
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

export type PostEventData = PostCreated | PostChanged | PostAutosaved | RevisionDeleted | Record<string, never>;
export type PostEvent = StoredEvent<PostEventData>;
