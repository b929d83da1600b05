import { type ArgSpecs } from '../../rest/args.js';
import { type FieldSchema } from '../../rest/schema.js';
import { LOCK_CHANGE_TYPES } from '../locks/index.js';
import { POST_EVENT_TYPES } from '../posts/index.js';

/** What a change may be: one of the item's own events, or one of its edit lock's. */
const CHANGE_TYPES = [...POST_EVENT_TYPES, ...LOCK_CHANGE_TYPES];

export const INCLUDES = ['none', 'item', 'diff'] as const;
export type Include = (typeof INCLUDES)[number];

/** The most changes one page holds, and how many by default. */
export const MAX_CHANGES_PER_PAGE = 500;
export const CHANGES_PER_PAGE = 100;
/**
 * What one page may carry and cost: once its changes' diffs and items (with their entries) pass
 * 1 MB of characters, or its diffs took 100 ms, it adds no more changes and ends before the next
 * (`last_position`). Each diff holds at most MAX_DIFF_CHARS a field, so a page holds at most
 * about 1 MB and one change more, whatever its items' texts and `limit`: 500 diffs of a long post
 * that differ on every line, copied for each reader and serialized whole, ran a process out of memory.
 */
export const MAX_PAGE_CHARS = 1 << 20;
export const MAX_PAGE_WORK_MS = 100;
/**
 * About how much event data a page reads (one event at least): past it the page ends sooner. A
 * page of 500 changes of a 340 KB post read 170 MB of events, decoded and folded in one go.
 */
export const MAX_PAGE_READ_CHARS = 4 << 20;
/**
 * About how much text a page holds in the states it folds its items to (one item's at least):
 * past it the page ends before its next change. Small changes of many long items (a title each)
 * read little but folded every item whole at once.
 */
export const MAX_PAGE_HELD_CHARS = 4 << 20;
/**
 * How long `feed=longpoll` waits at most, and by default, in milliseconds: under the 30 seconds
 * after which proxies (and many clients) commonly give up on a quiet request.
 */
export const MAX_LONGPOLL_MS = 25_000;
export const LONGPOLL_MS = 25_000;
/** How often an event stream says it is alive while nothing happens, by default. */
export const HEARTBEAT_MS = 15_000;

/** The arguments of `GET /changes`: every one declared, so that a bad value is refused as any other route refuses it. */
export function changesArgs(itemTypes: readonly string[]): ArgSpecs {
  return {
    since: {
      description: 'The last position the consumer has seen: the page starts after it (0: from the beginning). With `Accept: text/event-stream`, a `Last-Event-ID` header takes its place.',
      type: 'integer',
      minimum: 0,
      default: 0,
    },
    limit: { description: 'How many positions of the log the page covers at most. A page also ends early, before the change that would take its diffs and items past 1 MB (its first change always goes in): `last_position` says where the next starts.', type: 'integer', minimum: 1, maximum: MAX_CHANGES_PER_PAGE, default: CHANGES_PER_PAGE },
    types: { description: 'Only changes of items of these types.', type: 'array', items: { type: 'string', enum: [...itemTypes] } },
    subtypes: { description: 'Only changes of these kinds (`lock.*`: the item\'s edit lock taken, taken over, released or lapsed).', type: 'array', items: { type: 'string', enum: [...CHANGE_TYPES] } },
    include: {
      description: '`item`: each change carries the item as it is now, as `GET` on it answers; `diff`: what the change did to the item\'s text fields, as revision diffs show it (at most 256 KB of lines a field, past which the field\'s diff is `truncated`).',
      type: 'string',
      enum: [...INCLUDES],
      default: 'none',
    },
    feed: { description: '`longpoll`: an empty page is answered only once a change comes, or at `timeout`.', type: 'string', enum: ['normal', 'longpoll'], default: 'normal' },
    timeout: { description: 'How long, in milliseconds, `feed=longpoll` waits for a change.', type: 'integer', minimum: 0, maximum: MAX_LONGPOLL_MS, default: LONGPOLL_MS },
    heartbeat: { description: 'How often, in milliseconds, an event stream sends a comment while no change comes.', type: 'integer', minimum: 1000, maximum: MAX_LONGPOLL_MS, default: HEARTBEAT_MS },
  };
}

const hunk: FieldSchema = {
  type: 'object',
  properties: {
    oldStart: { type: 'integer' },
    oldLines: { type: 'integer' },
    newStart: { type: 'integer' },
    newLines: { type: 'integer' },
    lines: { type: 'array', items: { type: 'string' } },
  },
};

/** One change as the feed shows it: the history entry of its event, with the item it belongs to. */
export const changeSchema: FieldSchema = {
  type: 'object',
  properties: {
    position: { description: 'The change\'s place on the one clock of the log.', type: 'integer' },
    item: { description: 'The id of the item changed.', type: 'integer' },
    item_type: { description: 'The type of the item changed.', type: 'string' },
    seq: { description: 'The change\'s place in the item\'s own history, from 1; for a lock event, the lock\'s generation.', type: 'integer' },
    type: {
      description: 'What happened to the item: one of its history\'s event types, or `lock.taken`, `lock.taken_over`, `lock.released`, `lock.lapsed` (its edit lock; shown only to who may read its history).',
      type: 'string',
      enum: [...CHANGE_TYPES],
    },
    date_gmt: { description: 'When the change was accepted, as GMT.', type: 'string' },
    author: { description: 'The id of the user who made the change.', type: 'integer' },
    fields: { description: 'The fields the change set.', type: 'array', items: { type: 'string' } },
    locked_by: { description: 'Present when the change was written while another user held the item\'s edit lock: that user\'s id (locks are advisory).', type: 'integer' },
    scheduled_change: {
      description: 'Present on an update that applied a scheduled change (the scheduler applied it as an update by `author`, who scheduled it): the change, who scheduled it, and the fields it carries that were changed since it was scheduled (null when not recorded).',
      type: 'object',
      properties: {
        id: { type: 'integer' },
        scheduled_by: { type: 'integer' },
        changed_meanwhile: { type: ['array', 'null'], items: { type: 'string' } },
      },
    },
    holder: { description: 'Lock events only: the user holding the lock (who held it, for `lock.released` and `lock.lapsed`).', type: 'integer' },
    previous_holder: { description: '`lock.taken_over` only: the user who held the lock before.', type: 'integer' },
    lapses: { description: '`lock.lapsed` only: when the lock lapsed (its last refresh and the lock window), as GMT; `date_gmt` is when the service recorded it, at that moment or soon after.', type: 'string' },
    revision: { description: 'The revision or autosave the change wrote, or null.', type: ['integer', 'null'] },
    redacted: { description: 'The fields whose content was erased from this change since.', type: 'array', items: { type: 'string' } },
    object: { description: 'With `include=item`: the item as it is now, or null when it is gone or not for the caller to read.', type: ['object', 'null'] },
    diff: {
      description: 'With `include=diff`: per text field, how the change altered it (null when the caller may not see the content).',
      type: ['object', 'null'],
      additionalProperties: { type: 'object', properties: { changed: { type: 'boolean' }, hunks: { type: 'array', items: hunk }, minimal: { type: 'boolean' }, truncated: { type: 'boolean' } } },
    },
  },
};

/** A page of the feed. */
export const changesPageSchema: FieldSchema = {
  type: 'object',
  properties: {
    changes: { type: 'array', items: changeSchema },
    last_position: { description: 'The last position the page covers (filtered or not for the caller): the `since` of the next request.', type: 'integer' },
  },
};
