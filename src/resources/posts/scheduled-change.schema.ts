import { defineAuthError, defineRestError, defineRestErrorWith } from '../../rest/errors.js';
import { type ItemSchema } from '../../rest/schema.js';

const VIEW_EDIT = ['view', 'edit'] as const;

export const scheduledChangeSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'scheduled-change',
  type: 'object',
  properties: {
    id: { description: 'Unique identifier for the scheduled change.', type: 'integer', context: [...VIEW_EDIT], readonly: true },
    parent: { description: 'The ID of the item it changes.', type: 'integer', context: [...VIEW_EDIT], readonly: true },
    type: { description: 'The post type of the item it changes.', type: 'string', context: [...VIEW_EDIT], readonly: true },
    author: { description: 'The ID of the user who scheduled it; the change is applied as an update by this user.', type: 'integer', context: [...VIEW_EDIT], readonly: true },
    date_gmt: { description: 'When the change is applied, as GMT.', type: 'string', format: 'date-time', context: [...VIEW_EDIT] },
    status: {
      description:
        'pending until its time; then applied (the update it made is `applied_position` on the log, and the change no longer appears in lists), ' +
        'or failed when the update was refused (`failure` names why). An applied or failed change can still be read, not edited.',
      type: 'string',
      enum: ['pending', 'applied', 'failed'],
      context: [...VIEW_EDIT],
      readonly: true,
    },
    fields: { description: "The item's fields the change sets, as they were sent; the item's other fields are left as they are then.", type: 'object', context: ['edit'], readonly: true },
    created_gmt: { description: 'When the change was scheduled, as GMT.', type: 'string', format: 'date-time', context: [...VIEW_EDIT], readonly: true },
    modified_gmt: { description: 'When the change was last edited, as GMT.', type: 'string', format: 'date-time', context: [...VIEW_EDIT], readonly: true },
    applied_position: { description: "The change log's position of the update that applied it; null while pending.", type: ['integer', 'null'], context: [...VIEW_EDIT], readonly: true },
    failure: { description: 'The error code the update was refused with, when it failed.', type: ['string', 'null'], context: [...VIEW_EDIT], readonly: true },
  },
};

export const ScheduledChangeInvalidId = defineRestError('rest_scheduled_change_invalid_id', 'Invalid scheduled change ID.', 404);
export const ScheduledChangeDone = defineRestError('rest_scheduled_change_done', 'The scheduled change has already been applied or has failed; it can no longer be changed.', 409);
export const CannotEditScheduledChange = defineAuthError('rest_cannot_edit_scheduled_change', 'Sorry, you are not allowed to change what someone else scheduled.');
/** A change's date must come: one in the past would be applied at once, which an update does. */
export const DateNotAhead = defineRestErrorWith('rest_invalid_param', 400, () => 'date_gmt must be in the future.');
