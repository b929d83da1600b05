import { eventsOfTypes, type TypedEvent } from '../../store/log/change-log.js';
import { type TemplateFields } from './template.model.js';

/** The change log's event types for templates and template parts (DESIGN.md, "The change log"). */
export const TEMPLATE_EVENT_TYPES = ['created', 'updated', 'trashed', 'autosaved', 'restored', 'revision_deleted', 'deleted'] as const;

/** When a revision or autosave was saved, in the site's timezone and in GMT. */
export interface SavedAt {
  local: string;
  gmt: string;
}

/**
 * A template's first event: one of the site's own, a theme file's customized copy, or a template
 * stored before templates kept a change log, recorded as it was when its stream began.
 */
export interface TemplateCreated {
  fields: TemplateFields;
}

/**
 * `updated`, `trashed` and `restored`: the fields that changed and, when the change made one, the
 * revision that records the template after it.
 */
export interface TemplateChanged {
  changes: Partial<TemplateFields>;
  /** Fields the change removed (`trashedFrom` once untrashed by an update). */
  unset?: (keyof TemplateFields)[];
  revisionId?: number;
  savedAt?: SavedAt;
  /** `restored` only: the revision whose fields were made current. */
  fromRevision?: number;
  /** Who held the item's edit lock when another user wrote this change (locks are advisory: the write went through). */
  lockedBy?: number;
}

/** The caller's one autosave of the template: the revisioned fields as sent, the rest as the template has them. */
export interface TemplateAutosaved {
  autosaveId: number;
  isNew: boolean;
  fields: Pick<TemplateFields, 'title' | 'content' | 'description'>;
  savedAt: SavedAt;
}

export interface TemplateRevisionDeleted {
  revisionId: number;
}

/** A force delete: its content is erased from the log, and nothing else is said. */
export type TemplateDeleted = Record<string, never>;

/** A template's events, as its commands decide them and the log stores them (the type strings of `TEMPLATE_EVENT_TYPES`). */
export type TemplateEvent =
  | { type: 'created'; data: TemplateCreated }
  | { type: 'updated' | 'trashed' | 'restored'; data: TemplateChanged }
  | { type: 'autosaved'; data: TemplateAutosaved }
  | { type: 'revision_deleted'; data: TemplateRevisionDeleted }
  | { type: 'deleted'; data: TemplateDeleted };

/** A template's event as read from the log. */
export type StoredTemplateEvent = TypedEvent<TemplateEvent>;

/** Whether an event read from the log is one of a template's: the one narrowing of its data. */
export const isTemplateEvent = eventsOfTypes<TemplateEvent>(TEMPLATE_EVENT_TYPES);
