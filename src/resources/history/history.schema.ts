import { type ArgSpecs } from '../../rest/args.js';
import { collectionArgs, contextArg } from '../../rest/item-schema.js';
import { type ItemSchema } from '../../rest/schema.js';

const both = ['view', 'edit'] as const;

/** One entry of an item's change log, as `/history` and `npm run export:timeline` show it. */
export const historySchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'history',
  type: 'object',
  properties: {
    seq: { description: 'Position of the event in the item\'s change log, from 1.', type: 'integer', context: both, readonly: true },
    type: {
      description: 'What happened to the item.',
      type: 'string',
      enum: ['created', 'updated', 'autosaved', 'trashed', 'untrashed', 'restored', 'revision_deleted', 'deleted'],
      context: both,
      readonly: true,
    },
    date_gmt: { description: 'When the change was accepted, as GMT.', type: 'string', format: 'date-time', context: both, readonly: true },
    author: { description: 'The id of the user who made the change.', type: 'integer', context: both, readonly: true },
    fields: {
      description: 'The fields the change set: every field for a creation, for an autosave those it was sent (the fields it keeps but was not sent are left empty, or as the same user\'s earlier autosave had them), otherwise those it changed (the modification date aside).',
      type: 'array',
      items: { type: 'string' },
      context: both,
      readonly: true,
    },
    revision: {
      description: 'The revision or autosave the change wrote, or null.',
      type: ['integer', 'null'],
      context: both,
      readonly: true,
    },
    redacted: {
      description: 'The fields whose content was erased from this entry since (a deleted revision, a deleted item).',
      type: 'array',
      items: { type: 'string' },
      context: both,
      readonly: true,
    },
    position: {
      description: 'Position of the event on the one clock of the whole change log: unique across every item, rising with the item\'s changes. A reader of the log by position that has seen a position never later finds an event below it.',
      type: 'integer',
      context: both,
      readonly: true,
    },
    locked_by: {
      description: 'Present when the change was written while another user held the item\'s edit lock: that user\'s id. Locks are advisory: the write went through, and its entry records whose lock it went past.',
      type: 'integer',
      context: both,
      readonly: true,
    },
    scheduled_change: {
      description:
        'Present on an update that applied a scheduled change: the scheduler applied it at its time, with no request, as an update by whoever scheduled it (the entry\'s `author`). ' +
        '`changed_meanwhile`: the fields it carries that changes of the item had changed since it was scheduled or its fields last edited (null when not recorded); it set them over those changes.',
      type: 'object',
      properties: {
        id: { description: 'The scheduled change.', type: 'integer' },
        scheduled_by: { description: 'The id of the user who scheduled it (who last edited it).', type: 'integer' },
        changed_meanwhile: { description: 'The fields it carries that were changed since it was scheduled, named as the entries of those changes name them.', type: ['array', 'null'], items: { type: 'string' } },
      },
      context: both,
      readonly: true,
    },
  },
};

// Entries are small and a page is one indexed range of the log, so a page holds up to the
// maximum by default: most histories fit in one request.
export const HISTORY_PER_PAGE = 100;

export const historyArgs: ArgSpecs = {
  context: contextArg(historySchema),
  ...collectionArgs(HISTORY_PER_PAGE),
};
