import { defineRestErrorWith, schemaError } from '../../rest/errors.js';

/** The consumer fell behind what the log still holds: it must start again from `earliest_position`. */
export const ChangesGone = defineRestErrorWith('cms_changes_gone', 410, (earliest: number) => ({
  message: 'The change log no longer holds the changes after this position; start again from the earliest it holds.',
  data: { earliest_position: earliest },
}));

/** A `since` (or `Last-Event-ID`) past the last position the log has handed out: no consumer was ever given it. */
export const sinceBeyondHead = (param: string, head: number) =>
  schemaError('rest_invalid_param', `${param} is after the last position of the change log (${head}).`, param);

/** A `Last-Event-ID` that is not a position. */
export const invalidLastEventId = () => schemaError('rest_invalid_param', 'Last-Event-ID must be a position (a whole number, 0 or more).', 'Last-Event-ID');
