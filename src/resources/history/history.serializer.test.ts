// A history entry of an update that applied a scheduled change, from the event as stored now and
// as stored before `scheduled` was recorded. No database.
import { describe, expect, it } from 'vitest';
import { type StoredEvent } from '../../store/log/change-log.js';
import { timelineEntry } from './history.serializer.js';

const updated = (data: Record<string, unknown>): StoredEvent => ({
  stream: 40, streamType: 'post', seq: 3, type: 'updated', at: new Date('2024-05-06T07:08:09Z'), actor: 7, position: 12,
  data: { changes: { title: 'Later', content: 'Later body', modified: '2024-05-06T07:08:09', modifiedGmt: '2024-05-06T07:08:09' }, ...data },
});

describe('timelineEntry of an update that applied a scheduled change', () => {
  it('names the change, who scheduled it and which of its fields had changed meanwhile', () => {
    const entry = timelineEntry(updated({ scheduled: { change: 55, scheduledBy: 7, changedMeanwhile: ['title'] } }));
    expect(entry).toMatchObject({ type: 'updated', author: 7, fields: ['title', 'content'], scheduled_change: { id: 55, scheduled_by: 7, changed_meanwhile: ['title'] } });
  });

  it('given an event stored with the change alone: its actor scheduled it, and what changed meanwhile is not known', () => {
    expect(timelineEntry(updated({ scheduledChange: 55 })).scheduled_change).toEqual({ id: 55, scheduled_by: 7, changed_meanwhile: null });
  });

  it('given an update that applied none: no scheduled_change', () => {
    expect(timelineEntry(updated({})).scheduled_change).toBeUndefined();
  });
});
