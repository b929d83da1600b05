import { defineAuthError, defineRestError, defineRestErrorWith } from '../../rest/errors.js';

export const CannotManageWidgets = defineAuthError('rest_cannot_manage_widgets', 'Sorry, you are not allowed to manage widgets on this site.');
export const WidgetTypeInvalid = defineRestError('rest_widget_type_invalid', 'Invalid widget type.', 404);

/** The reasons WordPress gives for refusing a widget write, word for word. */
export const WIDGET_PROBLEMS = {
  typeRequired: 'Widget type (id_base) is required.',
  notUpdatable: 'The provided widget type (id_base) cannot be updated.',
  rawNotSupported: 'Widget type does not support raw instances.',
  malformed: 'The provided instance is malformed.',
  invalid: 'The provided instance is invalid. Must contain raw OR encoded and hash.',
} as const;

export const InvalidWidget = defineRestErrorWith('rest_invalid_widget', 400, (problem: keyof typeof WIDGET_PROBLEMS) => WIDGET_PROBLEMS[problem]);
